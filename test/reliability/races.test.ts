import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, git } from '../helpers/home.js'
import { setupProject, startOverPort, type Setup } from '../helpers/project.js'
import { recordFigure } from './figures.js'

// One home for both tests: their lanes are of keys of their own, and the first test's counts are taken before the
// second launches.
let h: TestHome
let s: Setup
test.before(async () => {
  h = new TestHome('races')
  s = await setupProject(h)
})
test.after(async () => {
  await h.stop()
})

/** How many of the 50 starts are `svc lane start` processes; the others ask the kernel's port over HTTP at the same
 * moment. The race is the kernel's (every start reaches it as one request either way, and requests from one process
 * arrive closer together than processes that each start Node); the processes prove the CLI's exit code and line. */
const CLI_STARTS = 10

test('50 concurrent starts of different keys all succeed with consistent records and worktrees', async () => {
  const n = 50
  const port = await h.port()
  const start = (i: number) =>
    i < CLI_STARTS
      ? h.svc(
          [
            'lane',
            'start',
            '--run',
            'r1',
            '--key',
            `k${i}`,
            '--role',
            'builder',
            '--harness',
            'none',
            '--prompt',
            'x',
            '--no-wait',
          ],
          { env: s.env },
        )
      : startOverPort(h, s, {
          run: 'r1',
          key: `k${i}`,
          role: 'builder',
          harness: 'none',
          prompt: 'x',
          noWait: true,
        }).then((r) => ({ code: 0, stdout: `${r.line}\n`, stderr: '' }))
  const results = await Promise.all(Array.from({ length: n }, (_, i) => start(i)))
  for (const [i, r] of results.entries()) {
    assert.is(r.code, 0, r.stderr)
    assert.match(
      r.stdout,
      new RegExp(`^Lane r1/k${i} builder i1: conv \\d+ \\(r1-k${i}-builder-i1\\) in ${s.lanesRoot}/r1-k${i}\\n$`),
    )
  }
  const lanes = await port.laneList({ run: 'r1' })
  assert.is(lanes.length, n)
  assert.is(new Set(lanes.map((l) => l.key)).size, n)
  for (const l of lanes) assert.is(l.git?.branch, `r1/${l.key}`)
  const worktrees = git(s.project.checkout, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length
  assert.is(worktrees, n + 1)
  assert.is(git(s.project.checkout, 'branch', '--list', 'r1/*').split('\n').length, n)
  assert.is(readdirSync(s.lanesRoot).length, n)
  recordFigure('concurrent starts of different keys', `${n} at once: ${n} lanes, ${n} worktrees, ${n} branches`)
})

test('concurrent reports, tells and reaps on one lane: each succeeds or is refused cleanly', async () => {
  // The lane works until it is stopped (by the reap that completes); its start is no part of the race.
  const started = await startOverPort(h, s, { run: 'r2', key: 'p', role: 'play', prompt: 'exec sleep 3600' })
  const lane = 'r2-p-play-i1'
  const id = started.lane.id
  const calls = [
    ...Array.from({ length: 8 }, (_, i) =>
      h.svc(['lane', 'report', '--stdin', '--status', 'blocked'], {
        env: { SERVICE_CONVERSATION: id },
        input: `BLOCKED report ${i}`,
      }),
    ),
    ...Array.from({ length: 8 }, (_, i) => h.svc(['tell', lane, `message ${i}`])),
    ...Array.from({ length: 3 }, () => h.svc(['lane', 'reap', lane])),
  ]
  const results = await Promise.all(calls)
  for (const r of results) {
    assert.ok(r.code === 0 || r.code === 4 || r.code === 1, `exit ${r.code}`)
    if (r.code === 1)
      assert.ok(/^svc: .+\n(hint: .+\n)?$/.test(r.stderr), `a clean refusal: ${JSON.stringify(r.stderr)}`)
  }
  const reports = h.reports(lane) as { seq: number }[]
  const filed = results.slice(0, 8).filter((r) => r.code === 4).length
  assert.is(reports.length, filed, 'every acknowledged report is stored, no other')
  assert.equal(
    reports.map((r) => r.seq),
    Array.from({ length: filed }, (_, i) => i + 1),
  )
  const reaped = results.slice(16).filter((r) => r.code === 0).length
  assert.is(reaped, 1, 'exactly one reap completes')
  assert.not.ok(existsSync(started.lane.cwd), `${started.lane.cwd} removed by the reap`)
  const inbox = existsSync(join(h.service, 'agents', `conv-${lane}`, 'inbox.jsonl'))
    ? readFileSync(join(h.service, 'agents', `conv-${lane}`, 'inbox.jsonl'), 'utf8')
        .trim()
        .split('\n').length
    : 0
  assert.is(inbox, results.slice(8, 16).filter((r) => r.code === 0).length, 'every acknowledged tell is in the inbox')
  recordFigure(
    'concurrent reports, tells and reaps on one lane',
    `19 calls: ${filed} reports, ${inbox} tells, 1 reap acknowledged; the rest refused on one line`,
  )
})

test.run()
