import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { TestHome, alive, git, until } from '../helpers/home.js'
import { setupProject, startOverPort, type Setup } from '../helpers/project.js'
import { recordFigure } from './figures.js'
import type { PortInput } from '../../kernel/port/port.js'
import { brokenRecords } from '../helpers/broken-records.js'

let h: TestHome
let s: Setup
test.before.each(async () => {
  h = new TestHome('broken')
  s = await setupProject(h)
})
test.after.each(async () => {
  await h.stop()
})

/** A lane started from the root conversation over the kernel's port, for a test whose subject is not the start
 * (the half-added worktree's test runs `svc lane start` itself): a builder with no harness unless told. */
async function launch(key: string, more: Partial<PortInput<'laneStart'>> = {}) {
  await startOverPort(h, s, { run: 'r1', key, role: 'builder', harness: 'none', prompt: 'x', noWait: true, ...more })
}

let states = 0
/** Kinds of hostile store and runner file injected (the figure of item 12). */
let hostileFiles = 0

test('a stale temp file of the store is removed at start and logged; the record beside it loads', async () => {
  await h.ok(['kernel', 'stop'])
  const tmp = join(h.service, 'agents', `conv-c${s.root}`, `.record.json.424242.7.tmp`)
  writeFileSync(tmp, '{"half a rec')
  const v = JSON.parse(await h.ok(['conv', 'show', s.root, '--json']))
  assert.is(v.id, s.root)
  // The kernel logs the removal once its unlink is done: the file is gone a moment before the line is written, so the
  // line is what is waited for, and the file is then gone for certain.
  await until(
    () => h.kernelLog().includes(`removed temp file of an interrupted write: ${tmp}`),
    'the removal of the stale temp file logged',
  )
  assert.not.ok(existsSync(tmp))
  states++
})

test('a worktree half-added (locked "initializing") where a lane would go: the launch is refused clearly, nothing else touched', async () => {
  const dir = join(s.lanesRoot, 'r1-b')
  mkdirSync(s.lanesRoot, { recursive: true })
  git(s.project.checkout, 'worktree', 'add', '--lock', '--reason', 'initializing', '--detach', dir, 'HEAD')
  const r = await h.svc(
    ['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--prompt', 'x', '--no-wait'],
    { env: s.env },
  )
  assert.is(r.code, 1)
  assert.is(r.stderr, `svc: refused: ${dir} already exists; reap the lane that used it or move it away\n`)
  assert.match(git(s.project.checkout, 'worktree', 'list', '--porcelain'), 'locked initializing')
  states++
})

test("a lane whose worktree is locked: reap refuses with git's reason and archives nothing", async () => {
  await launch('b')
  const dir = join(s.lanesRoot, 'r1-b')
  git(s.project.checkout, 'worktree', 'lock', '--reason', 'initializing', dir)
  const r = await h.svc(['lane', 'reap', 'r1-b-builder-i1'])
  assert.is(r.code, 1)
  assert.is(
    r.stderr,
    `svc: refused: the worktree ${dir} is locked (initializing); unlock it with git worktree unlock once nothing is ` +
      `using it\n`,
  )
  assert.is(r.stderr.trim().split('\n').length, 1)
  assert.ok(existsSync(dir))
  assert.is(JSON.parse(await h.ok(['conv', 'show', 'r1-b-builder-i1', '--json'])).archived, false)
  states++
})

test("a lane directory deleted behind the kernel's back: list shows no git facts, reap prunes it and archives with a warning", async () => {
  await launch('b')
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

/** Runner files a runner or a mark could leave broken: each reads as no state for its conversation alone. */
const BROKEN_RUNNER_FILES: [string, string, string | 'fifo'][] = [
  [
    'state.json',
    'a string cost.usd',
    JSON.stringify({ runner: { pid: 1, start: 'x' }, cost: { usd: '0.50', estimated: false } }),
  ],
  ['state.json', 'not JSON', '{"runner": {"pid": 1,'],
  [
    'state.json',
    'a phase that is none',
    JSON.stringify({ runner: { pid: 1, start: 'x' }, phase: { value: 'busy', source: 'x', at: 1 } }),
  ],
  ['state.json', 'a JSON array', '[1, 2]'],
  ['mark.json', 'a mark with no time', JSON.stringify({ value: 'idle', source: 'self-mark' })],
  ['mark.json', 'JSON null', 'null'],
  ['state.json', 'a pipe that no one writes (a read would block)', 'fifo'],
]

async function api(path: string): Promise<{ status: number; body: any }> {
  const k = h.kernelFile()!
  const res = await fetch(`http://127.0.0.1:${k.port}${path}`, { headers: { authorization: `Bearer ${k.token}` } })
  return { status: res.status, body: await res.json() }
}

test('a broken state.json or mark.json reads as no state, named in the evidence and the log; lane list, conv show and the deck keep working', async () => {
  await launch('b', { model: 'm' })
  await launch('c', { model: 'm' })
  // The reads go through the CLI's own dispatch in this process (the tests above run the same verbs as processes).
  for (const [file, what, content] of BROKEN_RUNNER_FILES) {
    const path = join(h.service, 'agents', 'conv-r1-b-builder-i1', file)
    if (content === 'fifo') spawnSync('mkfifo', [path])
    else writeFileSync(path, content)
    const rows = JSON.parse(await h.ok(['lane', 'list', '--json'], { here: true }))
    assert.is(rows.length, 2, `${file} with ${what}: lane list answers for every lane`)
    assert.match(await h.ok(['lane', 'list'], { here: true }), 'r1/c', what)
    const v = JSON.parse(await h.ok(['conv', 'show', 'r1-b-builder-i1', '--json'], { here: true }))
    assert.is(v.cost, undefined, what)
    assert.match(v.evidence.detail, `${path} `, `${what}: the evidence names the file`)
    assert.match(await h.ok(['conv', 'show', 'r1-b-builder-i1'], { here: true }), path, what)
    assert.is(
      JSON.parse(await h.ok(['conv', 'show', 'r1-c-builder-i1', '--json'], { here: true })).evidence.detail,
      undefined,
      `${what}: the other lane is untouched`,
    )
    const tree = await api('/api/tree')
    assert.is(tree.status, 200, `${what}: the deck's tree answers`)
    assert.is(Object.keys(tree.body.lanes).length, 2)
    assert.match(h.kernelLog(), `runner file refused: ${path} `, what)
    rmSync(path)
    hostileFiles++
  }
})

test('broken records ("id":"abc" and every other kind) and a broken reports file are refused, each with one line naming it; the others keep working, new ids stay numbers, doctor names each file', async () => {
  await launch('b', { model: 'm' })
  await h.ok(['kernel', 'stop'])
  const kinds = brokenRecords(s.root)
  const files = kinds.map(([, content], i) => {
    const dir = join(h.service, 'agents', `conv-hostile-${i}`)
    mkdirSync(dir)
    writeFileSync(join(dir, 'record.json'), content(`hostile-${i}`))
    return join(dir, 'record.json')
  })
  const reports = join(h.service, 'agents', 'conv-r1-b-builder-i1', 'reports.json')
  writeFileSync(reports, '{"reports": [{"seq": 1, "at": 1, "status": "done"}]}')
  files.push(reports)
  const list = JSON.parse(await h.ok(['conv', 'list', '--json']))
  assert.equal(
    list.map((c: { name: string }) => c.name).sort(),
    [`c${s.root}`, 'r1-b-builder-i1'],
    'the good conversations are listed',
  )
  assert.is(
    JSON.parse(await h.ok(['lane', 'list', '--json']))[0].report,
    undefined,
    'the lane whose reports file is broken is listed, with no report',
  )
  const id = (await h.ok(['conv', 'new', '--harness', 'none', '--cwd', h.home])).trim()
  assert.match(id, /^[1-9][0-9]*$/, 'the next id is a number')
  const log = h.kernelLog().split('\n')
  for (const f of files)
    assert.is(log.filter((l) => l.includes(`store file ${f} `)).length, 1, `one log line names ${f}`)
  const doctor = await h.svc(['doctor'])
  assert.is(doctor.code, 1)
  for (const f of files) {
    assert.match(doctor.stdout, `PROBLEM  store file: ${f} `)
    assert.match(doctor.stdout, `fix: repair ${f} or move it away, then restart the kernel (svc kernel stop)`)
  }
  assert.match(
    doctor.stdout,
    `PROBLEM  store file: ${files[kinds.findIndex(([what]) => what.includes('abc'))]} does not hold what it should ` +
      `(id: `,
  )
  hostileFiles += files.length
  recordFigure(
    'hostile records: kinds of broken record, reports and runner file injected (record.json, reports.json, ' +
      'state.json, mark.json)',
    `${hostileFiles} kinds, each refused with one line naming the file; every other conversation kept working`,
  )
})

test('a runner whose harness died with no state written is marked ended by the reconcile', async () => {
  // Its shell harness started (the start waits for it) before the runner is killed.
  await startOverPort(h, s, { run: 'r1', key: 'p', role: 'play', prompt: 'sleep 60' })
  const state = JSON.parse(readFileSync(join(h.service, 'agents', 'conv-r1-p-play-i1', 'state.json'), 'utf8'))
  await h.ok(['kernel', 'stop'])
  process.kill(-state.runner.pid, 'SIGKILL')
  await until(() => !alive(state.runner.pid) && !(state.harness && alive(state.harness.pid)), 'the runner group dead')
  // With no grace (the test build takes it from the environment) the next kernel decides at its start.
  const v = JSON.parse(
    await h.ok(['conv', 'show', 'r1-p-play-i1', '--json'], {
      env: { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '0' },
    }),
  )
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.source, 'reconcile')
  recordFigure(
    'broken states injected by hand (stale temp file, half-added and locked worktrees, lane directory deleted, ' +
      'runner killed without a word)',
    `${states + 1} states, each reconciled or refused with a clear message`,
  )
})

test.run()
