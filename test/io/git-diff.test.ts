import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { diffAgainst } from '../../kernel/io/git-diff.js'
import { scratchDir } from '../helpers/home.js'

// A builder's change against its base, as the conversation page loads it: the stat, the patch up to a cap.

const BASE = scratchDir('io-git-diff')
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
}
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim()

/** A clone whose origin/main holds one commit, with a branch `work` that adds a commit and leaves a tracked change. */
function setup(): string {
  const origin = join(BASE, 'origin')
  const dir = join(BASE, 'clone')
  mkdirSync(origin, { recursive: true })
  git(origin, 'init', '-q', '-b', 'main')
  writeFileSync(join(origin, 'a.txt'), 'a\n')
  git(origin, 'add', '-A')
  git(origin, 'commit', '-qm', 'base')
  git(BASE, 'clone', '-q', origin, dir)
  git(dir, 'checkout', '-qb', 'work')
  writeFileSync(join(dir, 'big.txt'), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
  git(dir, 'add', 'big.txt')
  git(dir, 'commit', '-qm', 'big')
  writeFileSync(join(dir, 'a.txt'), 'a\nchanged\n')
  return dir
}

const dir = setup()
test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('diffAgainst: committed and uncommitted tracked changes since the common base, whole when under the cap', async () => {
  const d = await diffAgainst(dir, 'origin/main', 1_000_000)
  if ('unavailable' in d) throw new Error(d.unavailable)
  assert.match(d.base, /^origin\/main \([0-9a-f]{7}\)$/)
  assert.match(d.stat, /a\.txt\s+\|\s+1 \+/)
  assert.match(d.stat, /big\.txt\s+\|\s+3000 \+/)
  assert.is(d.truncated, false)
  assert.is(d.bytes, Buffer.byteLength(d.patch))
  assert.match(d.patch, '+changed\n')
  assert.match(d.patch, '+line 3000\n')
})

test('diffAgainst: over the cap, the patch is cut at a line end and says how big the whole is', async () => {
  const whole = await diffAgainst(dir, 'origin/main', 1_000_000)
  const d = await diffAgainst(dir, 'origin/main', 4096)
  if ('unavailable' in d || 'unavailable' in whole) throw new Error('unavailable')
  assert.is(d.truncated, true)
  assert.is(d.bytes, whole.bytes)
  assert.ok(Buffer.byteLength(d.patch) <= 4096 && Buffer.byteLength(d.patch) > 2048, String(Buffer.byteLength(d.patch)))
  assert.ok(d.patch.endsWith('\n'), 'cut at a line end')
  assert.ok(whole.patch.startsWith(d.patch), 'the start of the whole patch')
  assert.is(d.stat, whole.stat, 'the stat is always whole')
})

test('diffAgainst: a branch compared in the repository (the worktree is gone); no common base says so', async () => {
  const d = await diffAgainst(dir, 'origin/main', 1_000_000, 'work')
  if ('unavailable' in d) throw new Error(d.unavailable)
  assert.match(d.stat, /big\.txt/)
  assert.not.match(d.stat, /a\.txt/, 'the uncommitted change is not on the branch')
  const none = await diffAgainst(dir, 'origin/nothing', 1_000_000)
  assert.ok('unavailable' in none)
  assert.match((none as { unavailable: string }).unavailable, /^no common base with origin\/nothing: /)
})

test.run()
