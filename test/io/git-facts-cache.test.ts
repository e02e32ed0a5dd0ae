import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { realAdapters } from '../../kernel/io/adapters.js'
import type { GitFacts } from '../../kernel/io/git.js'
import type { KernelContext } from '../../kernel/services/context.js'
import { GitFactsCache } from '../../kernel/services/git-facts.js'
import { ViewCache } from '../../kernel/services/view-cache.js'
import type { WorktreeWatcher } from '../../kernel/io/watch.js'
import { git, scratchDir, until } from '../helpers/home.js'

// The git facts cache with a worktree the test moves: its stamp and what a status read finds are the test's, and
// each read ends when the test lets it. A request that comes after the worktree moved never gets the facts of a read
// that began before the move, nor a list answered before it (a lane list showed a new file's worktree as clean that
// way, under load).

const DIR = '/w/r1-c'

function world() {
  const real = realAdapters()
  const tree = { stamp: 's1', dirty: false }
  /** The reads begun, each with what it found and the way to end it. */
  const reads: { found: GitFacts; end: () => void }[] = []
  const io = {
    ...real,
    files: { ...real.files, exists: () => true },
    clock: { now: () => 1_800_000_000_000 },
    git: {
      ...real.git,
      worktreeGitDir: () => '/w/.git/worktrees/r1-c',
      worktreeStamp: () => tree.stamp,
      statusFacts: () => {
        const found: GitFacts = { branch: 'r1/c', dirty: tree.dirty, dirtyPaths: tree.dirty ? 1 : 0 }
        return new Promise<GitFacts>((resolve) => reads.push({ found, end: () => resolve(found) }))
      },
    },
  }
  return { cache: new GitFactsCache(io), tree, reads }
}

test('a request after the worktree moved waits for a read that began after the move', async () => {
  const w = world()
  const background = w.cache.fresh(DIR)
  await until(() => w.reads.length === 1, 'the first read begun', 5000, 5)
  // A file is added while that read is under way: the read may not see it.
  w.tree.stamp = 's2'
  w.tree.dirty = true
  const asked = w.cache.many([DIR])
  w.reads[0].end()
  assert.is((await background)?.dirty, false)
  await until(() => w.reads.length === 2, 'a second read begun', 5000, 5)
  w.reads[1].end()
  assert.is((await asked).get(DIR)?.dirty, true)
})

test('a request while a read is under way and nothing moved shares that read', async () => {
  const w = world()
  const background = w.cache.fresh(DIR)
  await until(() => w.reads.length === 1, 'the first read begun', 5000, 5)
  const asked = w.cache.many([DIR])
  w.reads[0].end()
  assert.is((await asked).get(DIR)?.dirty, false)
  assert.is((await background)?.dirty, false)
  assert.is(w.reads.length, 1)
})

test('a list answered before a worktree moved is not reused after the move, even before the facts are read again', async () => {
  const w = world()
  const read = w.cache.fresh(DIR)
  await until(() => w.reads.length === 1, 'the first read begun', 5000, 5)
  w.reads[0].end()
  await read
  const ctx = { io: { clock: { now: () => 1_800_000_000_000 } }, changeCount: 7 } as unknown as KernelContext
  let computed = 0
  const lists = new ViewCache<number>(ctx, 500, w.cache)
  const list = () => lists.get('all', async (facts) => (await facts.many([DIR]), ++computed))
  assert.is(await list(), 1)
  assert.is(await list(), 1, 'nothing moved: the answer is reused')
  w.cache.touch(DIR)
  const again = list()
  await until(() => w.reads.length === 2, 'the moved worktree read again', 5000, 5)
  w.reads[1].end()
  assert.is(await again, 2, 'the worktree moved: the list is made again')
  w.cache.touch('/w/never-read')
  assert.is(await list(), 2, 'a worktree never read shows in no list')
})

test('a list answered before a worktree moved is not reused when the watcher has not told of the move', async () => {
  const w = world()
  const ctx = { io: { clock: { now: () => 1_800_000_000_000 } }, changeCount: 7 } as unknown as KernelContext
  let computed = 0
  const lists = new ViewCache<number>(ctx, 500, w.cache)
  const list = () => lists.get('all', async (facts) => (await facts.many([DIR]), ++computed))
  const first = list()
  await until(() => w.reads.length === 1, 'the first read begun', 5000, 5)
  w.reads[0].end()
  assert.is(await first, 1)
  assert.is(await list(), 1, 'nothing moved: the answer is reused')
  w.tree.stamp = 's2'
  const again = list()
  await until(() => w.reads.length === 2, 'the moved worktree read again', 5000, 5)
  w.reads[1].end()
  assert.is(await again, 2, 'the stamp moved with no event: the list is made again')
  assert.is(await list(), 2, 'nothing moved since: the new answer is reused')
})

test('a list right after a commit shows it though the watcher never reported the commit', async () => {
  const root = scratchDir('view-cache-commit')
  try {
    const dir = join(root, 'w')
    mkdirSync(root, { recursive: true })
    git(root, 'init', '-q', '-b', 'main', dir)
    writeFileSync(join(dir, 'a.txt'), 'one\n')
    git(dir, 'add', 'a.txt')
    git(dir, 'commit', '-q', '-m', 'one')
    // A watcher that loses every event: only the stamps can tell of the commit.
    const silent: WorktreeWatcher = { add: () => {}, remove: () => {}, close: async () => {} }
    const io = realAdapters()
    const cache = new GitFactsCache(io, { watch: () => silent, changed: () => {} })
    const ctx = { io, changeCount: 0 } as unknown as KernelContext
    const lists = new ViewCache<string | undefined>(ctx, 60_000, cache)
    const headShown = () => lists.get('all', async (facts) => (await facts.many([dir])).get(dir)?.head)
    const before = await headShown()
    assert.is(before, git(dir, 'rev-parse', 'HEAD'))
    assert.is(await headShown(), before, 'nothing moved: the answer is reused')
    writeFileSync(join(dir, 'a.txt'), 'two\n')
    git(dir, 'commit', '-q', '-am', 'two')
    const after = git(dir, 'rev-parse', 'HEAD')
    assert.is.not(after, before)
    assert.is(await headShown(), after, 'the list right after the commit shows it')
    // A commit that writes neither HEAD nor the index.
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'three')
    assert.is(await headShown(), git(dir, 'rev-parse', 'HEAD'), 'the list right after an empty commit shows it')
    await cache.close()
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
