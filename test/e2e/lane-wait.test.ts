import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, connectedToKernel, until } from '../helpers/home.js'
import type { Setup } from '../helpers/project.js'
import { reportSuite } from './report-kit.js'
import { caseCount } from '../helpers/cases.js'

// `svc lane wait` (SPEC.md 4.1 wait): by cursor over a run, usage errors, many lanes and waits at once, a kernel
// killed or restarted under the waits. What a lane may report is in lane-report.

/** Lanes that report at once while waits follow their run: 10 in every run, 20 in the nightly run (each lane costs a
 * launch and a report's Node start; more of them repeat the same deliveries). */
const FOLLOWED = caseCount('WAIT_LANES', { quick: 10, full: 20 })

/** The order a run's wait hands reports out in, its cursor's: oldest first, and reports filed in the same millisecond
 * by their lanes' names (as strings: r1-k10 before r1-k2), then by their numbers. */
const oldestFirst = (a: { at: number; name: string; seq: number }, b: { at: number; name: string; seq: number }) =>
  a.at - b.at || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.seq - b.seq)

let h: TestHome
let s: Setup
const { start, gate, open, reportsOf } = reportSuite((w) => ({ h, s } = w))

test('wait --run: oldest first by cursor, body on stdout, next command with the new cursor on stderr; a report filed before the wait is returned at once', async () => {
  await start(['--key', 'a', '--role', 'builder', '--prompt', `svc lane report --allow-unpushed --stdin <<<'first'`])
  await h.ok(['lane', 'wait', 'r1-a-builder-i1'])
  await start([
    '--key',
    'b',
    '--role',
    'verifier',
    '--prompt',
    `${gate('1')}; svc lane report --stdin --verdict PASS <<<'second'`,
  ])
  const w1 = await h.svc(['lane', 'wait', '--run', 'r1'])
  assert.is(w1.code, 0)
  assert.is(w1.stdout, 'first\n')
  const cursor = /--after (\S+)\n$/.exec(w1.stderr)![1]
  const r1 = reportsOf('r1-a-builder-i1')[0]
  assert.is(cursor, `${r1.at}.r1-a-builder-i1.1`)
  assert.match(w1.stderr, `next: svc lane wait --run r1 --after ${cursor}\n`)
  const pending = h.svc(['lane', 'wait', '--run', 'r1', '--after', cursor])
  await until(
    () => connectedToKernel(h.service, h.kernelFile()!.port, `lane wait --run r1 --after ${cursor}`),
    'the wait asking the kernel',
  )
  open('1')
  const w2 = await pending
  assert.is(w2.code, 0)
  assert.is(w2.stdout, 'second\n')
  const c2 = /--after (\S+)\n$/.exec(w2.stderr)![1]
  assert.match(c2, /\.r1-b-verifier-i1\.1$/)
  const w3 = await h.svc(['lane', 'wait', '--parent', s.root, '--after', c2])
  assert.is(w3.code, 2)
  assert.is(
    w3.stderr,
    `svc: every lane of the lanes of conv ${s.root} has exited with no further report\nnext: svc lane wait --parent ` +
      `${s.root} --after ${c2}\n`,
  )
})

test('wait usage errors exit 1', async () => {
  const cases: [string[], string][] = [
    [['lane', 'wait'], 'svc: wait takes exactly one of <lane>, --run <key> or --parent <conv>\n'],
    [['lane', 'wait', 'x', '--run', 'r1'], 'svc: wait takes exactly one of <lane>, --run <key> or --parent <conv>\n'],
    [
      ['lane', 'wait', '--run', 'r1', '--after', 'garbage'],
      "svc: --after 'garbage' is not a cursor of the form <atMs>.<name>.<seq>\n",
    ],
    [['lane', 'wait', '--run', 'R!'], "svc: invalid run key 'R!': it must match ^[a-z0-9][a-z0-9-]{0,31}$\n"],
    [['lane', 'wait', '--run', 'r1', '--timeout', 'soon'], "svc: --timeout must be a number of seconds, not 'soon'\n"],
    [['lane', 'wait', s.root], `svc: conv ${s.root} (c${s.root}) is not a lane\n`],
    [['lane', 'report'], 'svc: give exactly one of --file <path> or --stdin\n'],
    [
      ['lane', 'report', '--stdin', '--status', 'maybe'],
      "svc: --status must be one of done, blocked, failed, not 'maybe'\n",
    ],
    [['lane', 'report', '--stdin', '--defects', '-1'], "svc: --defects must be a whole number, 0 or more, not '-1'\n"],
  ]
  // The CLI's dispatch in this process: what a process of its own prints and exits with, without a Node start each.
  for (const [args, stderr] of cases) {
    const r = await h.svc(args, { env: s.env, here: true })
    assert.is(r.code, 1, args.join(' '))
    assert.is(r.stderr, stderr, args.join(' '))
  }
})

test(`${FOLLOWED} lanes reporting concurrently while 3 waits follow the run by cursor: each report delivered to each wait exactly once, in order`, async () => {
  const n = FOLLOWED
  for (let i = 0; i < n; i++)
    await start([
      '--key',
      `k${i}`,
      '--role',
      'builder',
      '--no-wait',
      '--prompt',
      `${gate('all')}; svc lane report --allow-unpushed --stdin <<<'report ${i}'`,
    ])
  // Two of the waits ask over the kernel's port: what is tested is the delivery by cursor (the CLI's lines have tests
  // of their own); one wait is the CLI's dispatch run in this process, reading its cursor from the line it prints (the
  // CLI as processes follows a run in the next test, across a kernel killed under it).
  const port = await h.port()
  const follow = async (by: 'cli' | 'port') => {
    const seen: { body: string; cursor: string }[] = []
    let cursor: string | undefined
    while (seen.length < n) {
      if (by === 'port') {
        const r = await port.laneWait({ run: 'r1', after: cursor, timeoutMs: 60_000 })
        if (r.kind !== 'report') throw new Error(`wait answered ${JSON.stringify(r)}`)
        cursor = r.cursor
        seen.push({ body: r.report.body.trim(), cursor })
        continue
      }
      const r = await h.svc(
        ['lane', 'wait', '--run', 'r1', ...(cursor ? ['--after', cursor] : []), '--timeout', '60'],
        { here: true },
      )
      if (r.code !== 0) throw new Error(`wait exited ${r.code}: ${r.stderr}`)
      cursor = /--after (\S+)\n$/.exec(r.stderr)![1]
      seen.push({ body: r.stdout.trim(), cursor })
    }
    return seen
  }
  const followers = [follow('cli'), follow('port'), follow('port')]
  // The reports are let through while the waits follow (each is asked from this process at once; a wait from the
  // beginning would miss nothing in any case).
  open('all')
  const results = await Promise.all(followers)
  // A wait may return a report a moment before its file is written: the order is read once every file holds it.
  const names = Array.from({ length: n }, (_, i) => `r1-k${i}-builder-i1`)
  await until(
    () =>
      names.every(
        (name) => existsSync(join(h.service, 'agents', `conv-${name}`, 'reports.json')) && reportsOf(name).length === 1,
      ),
    'every report stored',
    30_000,
  )
  const all = names.map((name, i) => {
    const [{ at, seq }] = reportsOf(name) as { at: number; seq: number }[]
    return { at, seq, name, body: `report ${i}` }
  })
  const expected = all.sort(oldestFirst).map((r) => r.body)
  for (const seen of results) {
    assert.equal(
      seen.map((x) => x.body),
      expected,
    )
    assert.is(new Set(seen.map((x) => x.body)).size, n)
  }
})

test('five lanes, four waits and a kernel killed between two rounds of reports: every wait gets every report once, in order; to each wait the restart is invisible', async () => {
  const n = 5
  for (let i = 0; i < n; i++)
    // First a blocked report (a done one would end the builder's iteration; blocked exits 4), then the done one.
    await start([
      '--key',
      `k${i}`,
      '--role',
      'builder',
      '--no-wait',
      '--prompt',
      `${gate('a')}; svc lane report --status blocked --stdin <<<'BLOCKED k${i} first' || [ $? = 4 ]; ${gate('b')}; ` +
        `svc lane report --allow-unpushed --stdin <<<'k${i} second'`,
    ])
  // One follower is the CLI as processes, one call each; the other two run the CLI's own dispatch in this process
  // (the same reconnecting transport, without a Node start per report).
  const follow = async (here: boolean) => {
    const seen: string[] = []
    let cursor: string | undefined
    while (seen.length < 2 * n) {
      const r = await h.svc(
        ['lane', 'wait', '--run', 'r1', ...(cursor ? ['--after', cursor] : []), '--timeout', '60'],
        {
          here,
        },
      )
      if (r.code !== 0 && r.code !== 4) throw new Error(`wait exited ${r.code}: ${r.stderr}`)
      cursor = /--after (\S+)\n$/.exec(r.stderr)![1]
      seen.push(r.stdout.trim())
    }
    return seen
  }
  const followers = [follow(false), follow(true), follow(true)]
  // One wait on a single lane, a process of its own, asked before its second report and still waiting when the kernel
  // dies: it reconnects and neither misses nor repeats a report.
  const single = (async () => {
    await until(
      () =>
        existsSync(join(h.service, 'agents', 'conv-r1-k0-builder-i1', 'reports.json')) &&
        reportsOf('r1-k0-builder-i1').length === 1,
      'k0 first report',
      30_000,
    )
    return h.svc(['lane', 'wait', 'r1-k0-builder-i1', '--after', '1', '--timeout', '60'])
  })()
  await until(
    () => connectedToKernel(h.service, h.kernelFile()!.port, 'lane wait --run r1 --timeout 60'),
    'a run wait asking the kernel',
  )
  open('a')
  await until(
    () =>
      Array.from({ length: n }, (_, i) => `r1-k${i}-builder-i1`).every(
        (name) => existsSync(join(h.service, 'agents', `conv-${name}`, 'reports.json')) && reportsOf(name).length === 1,
      ),
    'the first round stored',
    30_000,
  )
  const k = h.kernelFile()!
  await until(
    () => connectedToKernel(h.service, k.port, 'lane wait r1-k0-builder-i1 --after 1'),
    'the single wait asking the kernel',
  )
  process.kill(k.pid, 'SIGKILL')
  await until(() => !alive(k.pid), 'kernel dead')
  open('b')
  // Settled, not raced: a failing wait must not leave the others to fail later, unheard.
  const results = (await Promise.allSettled(followers)).map((r) => {
    if (r.status === 'rejected') throw r.reason
    return r.value
  })
  const expected = Array.from({ length: n }, (_, i) =>
    reportsOf(`r1-k${i}-builder-i1`).map((r: { at: number; seq: number; body: string }) => ({
      ...r,
      name: `r1-k${i}-builder-i1`,
    })),
  )
    .flat()
    .sort(oldestFirst)
    .map((r: { body: string }) => r.body.trim())
  assert.is(expected.length, 2 * n, 'every report stored, none lost to the kill')
  for (const seen of results)
    assert.equal(seen, expected, 'each wait: every report once, in the order they were stored')
  const w = await single
  assert.is(w.code, 0, w.stderr)
  assert.is(w.stdout, 'k0 second\n')
  assert.match(w.stderr, 'next: svc lane wait r1-k0-builder-i1 --after 2\n')
  assert.ok(h.kernelFile()!.pid !== k.pid, 'a new kernel served the second round')
})

test.run()
