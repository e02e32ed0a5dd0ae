import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createConversation } from '../../kernel/services/conversations.js'
import { GitFactsCache } from '../../kernel/services/git-facts.js'
import { reapDirectory } from '../../kernel/services/lane-reap.js'
import { inNewDirectory, inReusedDirectory } from '../../kernel/services/lane-start-dir.js'
import { settleInterruptedLaunches } from '../../kernel/services/launch-intents.js'
import { homePaths } from '../../kernel/io/home.js'
import { scratchDir, until } from '../helpers/home.js'
import { memoryWorld, type MemoryWorld } from '../helpers/memory-world.js'

// The services that change a repository and a lanes root, driven on in-memory adapters (helpers/memory-world): the
// reap carrying out its plan, a launch taken back when its record cannot be written, and the intents a killed
// kernel left, settled at the next start. Each test reads the repository's changes in order and what is left.

const BASE = scratchDir('io-in-memory')
const ROOT = '/mem/src/sample-lanes'

/** Launch a builder the way lane start does (inNewDirectory, then its record); `record` fails the record. */
async function launchBuilder(w: MemoryWorld, name: string, record?: () => never) {
  const project = { key: 'k', entry: { path: w.repo }, checkout: w.repo, lanesRoot: ROOT }
  const dir = join(ROOT, name)
  return inNewDirectory(
    w.ctx,
    project,
    { role: 'builder', branch: `r1/${name}`, startPoint: 'main' },
    dir,
    undefined,
    (made) =>
      record
        ? record()
        : createConversation(w.ctx, {
            fallbackName: () => name,
            lane: { run: 'r1', key: 'k', role: 'builder', dir: name, root: ROOT, iteration: 1, ...made },
            harness: 'none',
            cwd: dir,
          }),
  )
}

/** A launched builder with `paths` changed paths in its worktree, the repository's changes so far forgotten. */
async function dirtyBuilder(w: MemoryWorld, name: string, paths = 1) {
  const rec = await launchBuilder(w, name)
  w.fs.writeFileSync(join(rec.cwd, 'work.txt'), 'unsaved\n')
  w.worktrees.get(rec.cwd)!.dirty = paths
  w.changes.length = 0
  return rec
}

const reap = (w: MemoryWorld, rec: Awaited<ReturnType<typeof launchBuilder>>, input: { park?: boolean } = {}) =>
  reapDirectory(w.ctx, new GitFactsCache(w.ctx.io), rec, input, async () => undefined)

/** The error a promise fails with (its message), or a failure when it does not fail. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (e) {
    return (e as Error).message
  }
  assert.unreachable('expected a refusal')
  return ''
}

test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('a dirty builder reaped with --park: the tree is kept at a ref, then cleaned, then the worktree removed; the branch stays', async () => {
  const w = await memoryWorld(BASE)
  const rec = await dirtyBuilder(w, 'r1-b1')
  w.time.now += 60_000
  const done = await reap(w, rec, { park: true })
  const ref = done.parked!.ref
  assert.match(ref, /^refs\/svc\/parked\/r1-b1\//)
  assert.equal(w.changes, [`keep tree-1-2 at ${ref}`, `clean ${rec.cwd}`, `worktree remove ${rec.cwd}`])
  assert.is(readFileSync(done.parked!.patch, 'utf8'), `patch of ${rec.cwd} to tree-1-2\n`)
  assert.equal(
    { removed: done.removed, archived: done.archived, warnings: done.warnings },
    {
      removed: rec.cwd,
      archived: true,
      warnings: [],
    },
  )
  assert.not.ok(w.fs.existsSync(rec.cwd))
  assert.is(w.branches.get('r1/r1-b1'), 'c0', 'the branch is kept')
  const after = w.ctx.store.get(rec.id)!
  assert.equal(
    { reaped: after.reaped, archived: after.archived },
    {
      reaped: { at: w.time.now },
      archived: { at: w.time.now },
    },
  )
})

test('a dirty builder without --park is refused before anything changes, and is not recorded as reaped', async () => {
  const w = await memoryWorld(BASE)
  const rec = await dirtyBuilder(w, 'r1-b2', 2)
  assert.is(
    await refusal(reap(w, rec)),
    `refused: ${rec.cwd} has uncommitted changes (2 paths); commit them, or pass --park to save them to a patch`,
  )
  assert.equal(w.changes, [])
  assert.equal(w.ctx.store.get(rec.id)!.reaped, undefined)
})

test('a park whose patch does not reproduce the tree cleans nothing and removes nothing; the lane is not reaped', async () => {
  const w = await memoryWorld(BASE)
  const rec = await dirtyBuilder(w, 'r1-b3')
  w.patch.givesBack = 'another-tree'
  assert.is(
    await refusal(reap(w, rec, { park: true })),
    'refused: the parked patch does not reproduce the worktree; nothing was cleaned',
  )
  assert.equal(w.changes, [], 'no ref, no clean, no remove')
  assert.ok(w.worktrees.get(rec.cwd) && w.fs.existsSync(join(rec.cwd, 'work.txt')))
  assert.equal(w.ctx.store.get(rec.id)!.reaped, undefined)
  w.patch.givesBack = undefined
  const { parked } = await reap(w, rec, { park: true })
  assert.ok(parked, 'a second reap, once the proof holds, parks')
})

test('a worktree remove git refuses, after the park, leaves the lane unreaped and the work at its ref', async () => {
  const w = await memoryWorld(BASE)
  const rec = await dirtyBuilder(w, 'r1-b4')
  w.failNext.set('worktreeRemove', "fatal: 'r1-b4' is locked")
  assert.match(await refusal(reap(w, rec, { park: true })), 'is locked')
  assert.is(w.changes.length, 2)
  assert.match(w.changes[0], /^keep tree-1-2 at refs\/svc\/parked\/r1-b4\//)
  assert.is(w.changes[1], `clean ${rec.cwd}`)
  const after = w.ctx.store.get(rec.id)!
  assert.equal({ reaped: after.reaped, archived: after.archived }, { reaped: undefined, archived: undefined })
  const again = await reap(w, rec)
  assert.equal({ removed: again.removed, archived: again.archived }, { removed: rec.cwd, archived: true })
})

test('a lane whose directory is already gone: a warning, the worktree list pruned, recorded and archived', async () => {
  const w = await memoryWorld(BASE)
  const rec = await launchBuilder(w, 'r1-b5')
  w.fs.rmSync(rec.cwd, { recursive: true })
  w.changes.length = 0
  const done = await reap(w, rec)
  assert.equal(done.warnings, [`warning: ${rec.cwd} was already gone`])
  assert.equal(w.changes, ['worktree prune'])
  assert.equal({ removed: done.removed, archived: done.archived }, { removed: null, archived: true })
  assert.is(w.worktrees.has(rec.cwd), false)
})

test('a reap asked after a --reuse start was let into the directory waits for the start, then finds it inside and removes nothing', async () => {
  const w = await memoryWorld(BASE)
  const earlier = await launchBuilder(w, 'r1-b7')
  w.changes.length = 0
  // The reap's first look into the directory (beside its git status), once it looks.
  const unseenWork = w.ctx.io.git.unseenWork
  let looked = false
  w.ctx.io.git.unseenWork = (...a) => ((looked = true), unseenWork(...a))
  const harness = { pid: 4242, pgid: 4242, command: 'harness', cwd: earlier.cwd, cwdInside: true, files: [] }
  let reaping: Promise<string> = Promise.resolve('')
  const again = await inReusedDirectory(w.ctx, { rec: earlier }, earlier.cwd, async (made) => {
    // The reap comes between the start's check and its harness running in the directory.
    reaping = reap(w, earlier).then(
      () => 'reaped',
      (e: Error) => e.message,
    )
    const waits = `info reap of r1-b7 waits for the --reuse start in ${earlier.cwd} to run there`
    await until(() => looked || w.logged.includes(waits), 'the reap waiting, or looking into the directory')
    assert.not.ok(looked, 'the reap looked into the directory before the start ran there')
    const rec = await createConversation(w.ctx, {
      fallbackName: () => 'r1-b7-again',
      lane: { run: 'r1', key: 'k', role: 'builder', dir: 'r1-b7', root: ROOT, iteration: 1, ...made },
      harness: 'none',
      cwd: earlier.cwd,
    })
    // Its harness runs there now.
    w.ctx.io.procs.processesInside = async () => [harness]
    return rec
  })
  assert.is(again.cwd, earlier.cwd)
  assert.is(await reaping, `refused: a process has its working directory inside ${earlier.cwd}: 4242 (harness)`)
  assert.equal(w.changes, [], 'the repository is as it was')
  assert.ok(w.fs.existsSync(join(earlier.cwd, '.git')), 'the directory is still there')
  assert.not.ok(w.ctx.store.get(earlier.id)!.reaped, 'the earlier lane is not reaped')
})

test('a launch whose record cannot be written is taken back: its worktree and its branch go, and its intent', async () => {
  const w = await memoryWorld(BASE)
  const message = await refusal(
    launchBuilder(w, 'r1-b6', () => {
      throw new Error('store is read-only')
    }),
  )
  assert.is(message, 'store is read-only')
  const dir = join(ROOT, 'r1-b6')
  assert.equal(w.changes, [`worktree add ${dir}`, `worktree remove ${dir}`, 'branch -D r1/r1-b6'])
  assert.not.ok(w.fs.existsSync(dir))
  assert.equal(w.ctx.io.intents.intentFiles(w.home).intents, [])
  assert.equal(w.warnings, [])
  // The directory is free again: the same launch goes through.
  const rec = await launchBuilder(w, 'r1-b6')
  assert.is(rec.cwd, dir)
})

test('a launch taken back whose worktree was changed meanwhile is left, its intent kept and the fix logged', async () => {
  const w = await memoryWorld(BASE)
  const dir = join(ROOT, 'r1-b7')
  await refusal(
    launchBuilder(w, 'r1-b7', () => {
      // Something wrote into it meanwhile (a worktree holding nothing but git's files would be removed by force).
      w.fs.writeFileSync(join(dir, 'notes.txt'), 'mine\n')
      w.worktrees.get(dir)!.dirty = 3
      throw new Error('store is read-only')
    }),
  )
  assert.equal(w.changes, [`worktree add ${dir}`], 'nothing removed')
  assert.equal(w.warnings, [
    `an interrupted launch left ${dir}: a worktree no lane record claims, with changes (3 paths); fix: keep what ` +
      `you need from it, then run: git -C ${w.repo} worktree remove --force ${dir} && git -C ${w.repo} branch -D ` +
      `r1/r1-b7`,
  ])
  assert.is(w.ctx.io.intents.intentFiles(w.home).intents.length, 1, 'the intent stays for the next start to look again')
  assert.match(
    await refusal(launchBuilder(w, 'r1-b7')),
    `an interrupted launch left ${dir}: a worktree no lane record claims, with changes (3 paths)`,
  )
})

test('at kernel start, intents a killed kernel left are settled: an unclaimed clean worktree taken back, a claimed one only forgotten', async () => {
  const w = await memoryWorld(BASE)
  const claimed = await launchBuilder(w, 'r1-b8')
  // A launch killed after git made its worktree, before its record: its intent and worktree are all that is left.
  const dir = join(ROOT, 'r1-b9')
  const intent = {
    id: 'launch-killed',
    dir,
    kind: 'worktree' as const,
    repo: w.repo,
    branch: 'r1/r1-b9',
    start: 'c0',
    at: w.time.now,
  }
  assert.ok(await w.ctx.io.intents.recordIntent(w.home, intent))
  await w.ctx.io.git.worktreeAdd({ repo: w.repo, dir, branch: 'r1/r1-b9', startPoint: 'c0' })
  await w.ctx.io.dirs.writeLaunchId(dir, 'launch-killed')
  // And one of a launch that got as far as its record: the lane is the directory's now.
  assert.ok(
    await w.ctx.io.intents.recordIntent(w.home, {
      id: claimed.lane!.made!.launch,
      dir: claimed.cwd,
      kind: 'worktree',
      repo: w.repo,
      branch: 'r1/r1-b8',
      start: 'c0',
      at: w.time.now,
    }),
  )
  w.changes.length = 0
  await settleInterruptedLaunches(w.ctx)
  assert.equal(w.changes, [`worktree remove ${dir}`, 'branch -D r1/r1-b9'])
  assert.equal(w.warnings, [`took back what an unfinished launch made at ${dir} and its branch r1/r1-b9`])
  assert.equal(w.ctx.io.intents.intentFiles(w.home).intents, [])
  assert.ok(w.fs.existsSync(claimed.cwd) && w.worktrees.has(claimed.cwd), "the claimed lane's worktree is untouched")
  assert.ok(w.fs.existsSync(homePaths(w.home).launches))
  assert.not.ok(existsSync(homePaths(w.home).launches), 'the intents are in memory, not in the home on disk')
})

test.run()
