import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, git } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { recordFigure } from './figures.js'

let h: TestHome
let s: Setup
test.before.each(async () => {
  h = new TestHome('broken')
  s = await setupProject(h)
})
test.after.each(async () => {
  await h.stop()
})

let states = 0

test('a stale temp file of the store is removed at start and logged; the record beside it loads', async () => {
  await h.ok(['kernel', 'stop'])
  const tmp = join(h.service, 'agents', `conv-c${s.root}`, `.record.json.424242.7.tmp`)
  writeFileSync(tmp, '{"half a rec')
  const v = JSON.parse(await h.ok(['conv', 'show', s.root, '--json']))
  assert.is(v.id, s.root)
  for (let i = 0; i < 50 && existsSync(tmp); i++) await new Promise((r) => setTimeout(r, 50))
  assert.not.ok(existsSync(tmp))
  assert.match(readFileSync(join(h.service, 'kernel.log'), 'utf8'), `removed temp file of an interrupted write: ${tmp}`)
  states++
})

test('a worktree half-added (locked "initializing") where a lane would go: the launch is refused clearly, nothing else touched', async () => {
  const dir = join(s.lanesRoot, 'r1-b')
  mkdirSync(s.lanesRoot, { recursive: true })
  git(s.project.checkout, 'worktree', 'add', '--lock', '--reason', 'initializing', '--detach', dir, 'HEAD')
  const r = await h.svc(['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--prompt', 'x', '--no-wait'], { env: s.env })
  assert.is(r.code, 1)
  assert.is(r.stderr, `svc: refused: ${dir} already exists; reap the lane that used it or move it away\n`)
  assert.match(git(s.project.checkout, 'worktree', 'list', '--porcelain'), 'locked initializing')
  states++
})

test('a lane whose worktree is locked: reap refuses with git\'s reason and archives nothing', async () => {
  await h.ok(['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait'], { env: s.env })
  const dir = join(s.lanesRoot, 'r1-b')
  git(s.project.checkout, 'worktree', 'lock', '--reason', 'initializing', dir)
  const r = await h.svc(['lane', 'reap', 'r1-b-builder-i1'])
  assert.is(r.code, 1)
  assert.is(r.stderr, `svc: refused: the worktree ${dir} is locked (initializing); unlock it with git worktree unlock once nothing is using it\n`)
  assert.is(r.stderr.trim().split('\n').length, 1)
  assert.ok(existsSync(dir))
  assert.is(JSON.parse(await h.ok(['conv', 'show', 'r1-b-builder-i1', '--json'])).archived, false)
  states++
})

test('a lane directory deleted behind the kernel\'s back: list shows no git facts, reap prunes it and archives with a warning', async () => {
  await h.ok(['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait'], { env: s.env })
  const dir = join(s.lanesRoot, 'r1-b')
  rmSync(dir, { recursive: true, force: true })
  const [row] = JSON.parse(await h.ok(['lane', 'list', '--json']))
  assert.is(row.git, undefined)
  const r = await h.svc(['lane', 'reap', 'r1-b-builder-i1'])
  assert.is(r.code, 0, r.stderr)
  assert.is(r.stderr, `warning: ${dir} was already gone\n`)
  assert.is(JSON.parse(await h.ok(['conv', 'show', 'r1-b-builder-i1', '--json'])).archived, true, 'archived')
  assert.not.match(git(s.project.checkout, 'worktree', 'list'), 'r1-b')
  assert.match(git(s.project.checkout, 'branch', '--list', 'r1/b'), 'r1/b', 'the branch is kept')
  states++
})

test('a runner whose harness died with no state written is marked ended by the reconcile', async () => {
  await h.ok(['lane', 'start', '--run', 'r1', '--key', 'p', '--role', 'play', '--prompt', 'sleep 60'], { env: s.env })
  const state = JSON.parse(readFileSync(join(h.service, 'agents', 'conv-r1-p-play-i1', 'state.json'), 'utf8'))
  await h.ok(['kernel', 'stop'])
  process.kill(-state.runner.pid, 'SIGKILL')
  // Past the reconcile's grace (shortened by the test build) the next kernel decides at its start.
  await new Promise((r) => setTimeout(r, 300))
  const v = JSON.parse(await h.ok(['conv', 'show', 'r1-p-play-i1', '--json'], { env: { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '300' } }))
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.source, 'reconcile')
  recordFigure('broken states injected by hand (stale temp file, half-added and locked worktrees, lane directory deleted, runner killed without a word)', `${states + 1} states, each reconciled or refused with a clear message`)
})

test.run()
