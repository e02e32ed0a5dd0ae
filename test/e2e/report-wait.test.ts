import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, git, until } from '../helpers/home.js'
import { buildAndReport, setupProject, type Setup } from '../helpers/project.js'
import type { PortInput } from '../../kernel/port.js'
import { startRequest } from './lane-views-kit.js'

let h: TestHome
let s: Setup
test.before.each(async () => {
  h = new TestHome('report')
  s = await setupProject(h)
})
test.after.each(async () => {
  await h.stop()
})

/** `svc lane start --run r1 <args>` from the root conversation, asked over the kernel's port (the start's CLI has
 * suites of its own; these test what the lanes report and what waits get). */
const start = async (args: string[]) => (await h.port()).laneStart({ ...startRequest(args), run: 'r1', conversation: s.root, cwd: h.home } as PortInput<'laneStart'>)
/** A lane whose shell script waits for a file `go-<n>` in the test HOME before each step. */
const gate = (n: string) => `while [ ! -e ${h.home}/go-${n} ]; do sleep 0.05; done`
const open = (n: string) => writeFileSync(join(h.home, `go-${n}`), '')
const reportsOf = (name: string) => JSON.parse(readFileSync(join(h.service, 'agents', `conv-${name}`, 'reports.json'), 'utf8')).reports

test('report outside a lane, and inside a successor of a lane: not inside a lane', async () => {
  const outside = await h.svc(['lane', 'report', '--stdin'], { input: 'x', env: s.env })
  assert.is(outside.code, 1)
  assert.is(outside.stderr, 'svc: not inside a lane\n')
  const unset = await h.svc(['lane', 'report', '--stdin'], { input: 'x', env: { SERVICE_CONVERSATION: undefined } })
  assert.is(unset.code, 1)
  assert.is(unset.stderr, 'svc: not inside a lane\n')
  await start(['--key', 'o', '--role', 'orchestrator', '--prompt', `svc handoff --harness none > ${h.home}/succ; ${gate('1')}`])
  const succ = (await until(() => existsSync(join(h.home, 'succ')) && readFileSync(join(h.home, 'succ'), 'utf8').trim(), 'successor id')) as string
  const r = await h.svc(['lane', 'report', '--stdin'], { input: 'from successor', env: { SERVICE_CONVERSATION: succ } })
  assert.is(r.code, 1)
  assert.is(r.stderr, 'svc: not inside a lane\n')
  open('1')
})

test('a builder: refused from a dirty tree, refused unpushed, --allow-unpushed waives only the upstream; done freezes the iteration', async () => {
  const script = [
    'echo a > a.txt',
    `svc lane report --stdin --allow-unpushed <<<'dirty' 2> ${h.home}/e1 || echo $? > ${h.home}/c1`,
    'git add a.txt; git commit -qm a',
    `svc lane report --stdin <<<'unpushed' 2> ${h.home}/e2 || echo $? > ${h.home}/c2`,
    `svc lane report --stdin --allow-unpushed <<<'done without push' > ${h.home}/o3; echo $? > ${h.home}/c3`,
    `svc lane report --stdin --status blocked <<<'BLOCKED after done' 2> ${h.home}/e4 || echo $? > ${h.home}/c4`,
  ].join('\n')
  await start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await until(() => existsSync(join(h.home, 'c4')), 'script end')
  const read = (f: string) => readFileSync(join(h.home, f), 'utf8')
  assert.is(read('c1').trim(), '1')
  assert.is(read('e1'), 'svc: refused: a builder reports done only from a clean tree; commit or remove the changes (git status shows them)\n')
  assert.is(read('c2').trim(), '1')
  assert.is(read('e2'), 'svc: refused: branch r1/b has no upstream; push it with git push -u origin HEAD\n')
  assert.is(read('c3').trim(), '0')
  assert.is(read('o3'), 'report #1 filed: r1/b builder i1 done\n')
  assert.is(read('c4').trim(), '1')
  assert.is(read('e4'), 'svc: refused: branch r1/b is frozen: builder b i1 reported done (report #1); start a new iteration\n')
  const [report] = reportsOf('r1-b-builder-i1')
  assert.is(report.branch, 'r1/b')
  assert.is(report.head, git(join(s.lanesRoot, 'r1-b'), 'rev-parse', 'HEAD'))
  assert.is(report.body, 'done without push\n')
  assert.is(reportsOf('r1-b-builder-i1').length, 1)
})

test('a builder with commits its upstream lacks is refused; after pushing, done', async () => {
  const script = [
    'echo a > a.txt; git add a.txt; git commit -qm a; git push -q -u origin HEAD 2>/dev/null',
    'echo b > b.txt; git add b.txt; git commit -qm b',
    `svc lane report --stdin <<<'ahead' 2> ${h.home}/e1 || echo $? > ${h.home}/c1`,
    'git push -q 2>/dev/null',
    `svc lane report --stdin <<<'pushed'; echo $? > ${h.home}/c2`,
  ].join('\n')
  await start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await until(() => existsSync(join(h.home, 'c2')), 'script end')
  assert.is(readFileSync(join(h.home, 'e1'), 'utf8'), 'svc: refused: 1 commit(s) on r1/b are not on origin/r1/b; push them first\n')
  assert.is(readFileSync(join(h.home, 'c2'), 'utf8').trim(), '0')
})

test('blocked must begin with RULING, SPEND, ONE-WAY or BLOCKED; blocked and failed exit 4; wait prints the body and exits 4', async () => {
  const script = [
    `svc lane report --stdin --status blocked <<<'I am stuck' 2> ${h.home}/e1 || echo $? > ${h.home}/c1`,
    `svc lane report --stdin --status blocked <<<'SPEND: need a paid API key' || echo $? > ${h.home}/c2`,
    `svc lane report --stdin --status failed <<<'The brief cannot be done' || echo $? > ${h.home}/c3`,
    gate('1'),
  ].join('\n')
  await start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await until(() => existsSync(join(h.home, 'c3')), 'script end')
  assert.is(readFileSync(join(h.home, 'e1'), 'utf8'), 'svc: refused: a blocked report must begin with one of the words RULING, SPEND, ONE-WAY, BLOCKED\n')
  assert.is(readFileSync(join(h.home, 'c1'), 'utf8').trim(), '1', 'a refusal exits 1')
  assert.is(readFileSync(join(h.home, 'c2'), 'utf8').trim(), '4')
  assert.is(readFileSync(join(h.home, 'c3'), 'utf8').trim(), '4')
  const w1 = await h.svc(['lane', 'wait', 'r1-b-builder-i1'])
  assert.is(w1.code, 4)
  assert.is(w1.stdout, 'SPEND: need a paid API key\n')
  assert.is(w1.stderr, `report #1 blocked from r1/b builder i1 (conv ${await idOf('r1-b-builder-i1')})\nnext: svc lane wait r1-b-builder-i1 --after 1\n`)
  const w2 = await h.svc(['lane', 'wait', 'r1-b-builder-i1', '--after', '1'])
  assert.is(w2.code, 4)
  assert.is(w2.stdout, 'The brief cannot be done\n')
  assert.match(w2.stderr, 'next: svc lane wait r1-b-builder-i1 --after 2\n')
  const w3 = await h.svc(['lane', 'wait', 'conv-r1-b-builder-i1', '--after', '2', '--timeout', '0.5'])
  assert.is(w3.code, 3)
  assert.is(w3.stdout, '')
  assert.is(w3.stderr, 'svc: timed out after 0.5 s; still running\nnext: svc lane wait conv-r1-b-builder-i1 --after 2\n')
  open('1')
  const w4 = await h.svc(['lane', 'wait', 'r1-b-builder-i1', '--after', '2'])
  assert.is(w4.code, 2)
  assert.is(w4.stderr, 'svc: lane r1/b builder i1 exited (stopped: process exit) with no report\nnext: svc lane wait r1-b-builder-i1 --after 2\n')
})

const idOf = async (name: string) => (await (await h.port()).convShow({ conv: name })).id

test('critic verdicts: exactly one, with the done report; every refusal of rule 5; defects from the verdict file', async () => {
  await start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built')])
  await h.ok(['lane', 'wait', 'r1-b-builder-i1'])
  const head = reportsOf('r1-b-builder-i1')[0].head
  writeFileSync(join(h.home, 'v.json'), JSON.stringify({ defects: [{ what: 'x' }, { what: 'y' }, { what: 'z' }] }))
  writeFileSync(join(h.home, 'bad.json'), '{"defects": 3}')
  writeFileSync(join(h.home, 'nojson.json'), 'not json')
  const v = join(h.home, 'v.json')
  const script = [
    `svc lane report --stdin <<<'no verdict' 2> ${h.home}/e1 || echo $? > ${h.home}/c1`,
    `svc lane report --stdin --status blocked --verdict NOT_YET <<<'BLOCKED x' 2> ${h.home}/e2 || echo $? > ${h.home}/c2`,
    `svc lane report --stdin --verdict MAYBE <<<'x' 2> ${h.home}/e3 || echo $? > ${h.home}/c3`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${h.home}/bad.json <<<'x' 2> ${h.home}/e4 || echo $? > ${h.home}/c4`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${h.home}/nojson.json <<<'x' 2> ${h.home}/e5 || echo $? > ${h.home}/c5`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${h.home}/missing.json <<<'x' 2> ${h.home}/e6 || echo $? > ${h.home}/c6`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${v} <<<'three defects'`,
    `svc lane report --stdin --verdict WOWED <<<'again' 2> ${h.home}/e7 || echo $? > ${h.home}/c7`,
  ].join('\n')
  await start(['--for', 'b', '--role', 'critic', '--prompt', script])
  await until(() => existsSync(join(h.home, 'c7')), 'critic script end')
  const e = (n: number) => readFileSync(join(h.home, `e${n}`), 'utf8')
  assert.is(e(1), "svc: refused: a critic's done report needs its verdict: --verdict WOWED|IMPRESSED|NOT_YET\n")
  assert.is(e(2), 'svc: refused: a verdict goes with a done report, not a blocked one\n')
  assert.is(e(3), "svc: --verdict must be one of WOWED, IMPRESSED, NOT_YET, PASS, DEFECTS, not 'MAYBE'\n")
  assert.is(e(4), `svc: verdict file ${h.home}/bad.json has no array named defects\n`)
  assert.match(e(5), `svc: verdict file ${h.home}/nojson.json is not JSON: `)
  assert.is(e(6), `svc: cannot read the verdict file ${h.home}/missing.json: ENOENT\n`)
  assert.is(e(7), 'svc: refused: this critic has already filed its done report with its verdict\n')
  for (let n = 1; n <= 7; n++) assert.is(readFileSync(join(h.home, `c${n}`), 'utf8').trim(), '1', `refusal ${n} exits 1`)
  const reports = reportsOf('r1-b-critic-i1')
  assert.is(reports.length, 1)
  assert.is(reports[0].verdict, 'NOT_YET')
  assert.is(reports[0].defects, 3)
  assert.is(reports[0].judged, head, 'the verdict is bound to the judged commit')
  assert.is(readFileSync(reports[0].verdictFile, 'utf8'), readFileSync(v, 'utf8'))
})

test('--verdict from a builder is refused; --defects overrides the count', async () => {
  await start(['--key', 'b', '--role', 'builder', '--prompt', `svc lane report --stdin --verdict WOWED <<<'x' 2> ${h.home}/e1 || echo $? > ${h.home}/c1; ${buildAndReport('ok')}`])
  await h.ok(['lane', 'wait', 'r1-b-builder-i1'])
  assert.is(readFileSync(join(h.home, 'e1'), 'utf8'), 'svc: refused: a builder files no verdict; --verdict is for critic and verifier lanes\n')
  assert.is(readFileSync(join(h.home, 'c1'), 'utf8').trim(), '1')
  await start(['--key', 'all', '--role', 'verifier', '--prompt', `svc lane report --stdin --verdict DEFECTS --defects 7 <<<'seven'`])
  const w = await h.svc(['lane', 'wait', 'r1-all-verifier-i1'])
  assert.is(w.code, 0)
  assert.match(w.stderr, 'report #1 done DEFECTS (7 defects) from r1/all verifier i1')
})

test('wait --run: oldest first by cursor, body on stdout, next command with the new cursor on stderr; a report filed before the wait is returned at once', async () => {
  await start(['--key', 'a', '--role', 'builder', '--prompt', `svc lane report --allow-unpushed --stdin <<<'first'`])
  await h.ok(['lane', 'wait', 'r1-a-builder-i1'])
  await start(['--key', 'b', '--role', 'verifier', '--prompt', `${gate('1')}; svc lane report --stdin --verdict PASS <<<'second'`])
  const w1 = await h.svc(['lane', 'wait', '--run', 'r1'])
  assert.is(w1.code, 0)
  assert.is(w1.stdout, 'first\n')
  const cursor = /--after (\S+)\n$/.exec(w1.stderr)![1]
  const r1 = reportsOf('r1-a-builder-i1')[0]
  assert.is(cursor, `${r1.at}.r1-a-builder-i1.1`)
  assert.match(w1.stderr, `next: svc lane wait --run r1 --after ${cursor}\n`)
  const pending = h.svc(['lane', 'wait', '--run', 'r1', '--after', cursor])
  await new Promise((r) => setTimeout(r, 300))
  open('1')
  const w2 = await pending
  assert.is(w2.code, 0)
  assert.is(w2.stdout, 'second\n')
  const c2 = /--after (\S+)\n$/.exec(w2.stderr)![1]
  assert.match(c2, /\.r1-b-verifier-i1\.1$/)
  const w3 = await h.svc(['lane', 'wait', '--parent', s.root, '--after', c2])
  assert.is(w3.code, 2)
  assert.is(w3.stderr, `svc: every lane of the lanes of conv ${s.root} has exited with no further report\nnext: svc lane wait --parent ${s.root} --after ${c2}\n`)
})

test('wait usage errors exit 1', async () => {
  const cases: [string[], string][] = [
    [['lane', 'wait'], 'svc: wait takes exactly one of <lane>, --run <key> or --parent <conv>\n'],
    [['lane', 'wait', 'x', '--run', 'r1'], 'svc: wait takes exactly one of <lane>, --run <key> or --parent <conv>\n'],
    [['lane', 'wait', '--run', 'r1', '--after', 'garbage'], "svc: --after 'garbage' is not a cursor of the form <atMs>.<name>.<seq>\n"],
    [['lane', 'wait', '--run', 'R!'], "svc: invalid run key 'R!': it must match ^[a-z0-9][a-z0-9-]{0,31}$\n"],
    [['lane', 'wait', '--run', 'r1', '--timeout', 'soon'], "svc: --timeout must be a number of seconds, not 'soon'\n"],
    [['lane', 'wait', s.root], `svc: conv ${s.root} (c${s.root}) is not a lane\n`],
    [['lane', 'report'], 'svc: give exactly one of --file <path> or --stdin\n'],
    [['lane', 'report', '--stdin', '--status', 'maybe'], "svc: --status must be one of done, blocked, failed, not 'maybe'\n"],
    [['lane', 'report', '--stdin', '--defects', '-1'], "svc: --defects must be a whole number, 0 or more, not '-1'\n"],
  ]
  for (const [args, stderr] of cases) {
    const r = await h.svc(args, { env: s.env })
    assert.is(r.code, 1, args.join(' '))
    assert.is(r.stderr, stderr, args.join(' '))
  }
})

test('20 lanes reporting concurrently while 3 waits follow the run by cursor: each report delivered to each wait exactly once, in order', async () => {
  const n = 20
  for (let i = 0; i < n; i++) await start(['--key', `k${i}`, '--role', 'builder', '--no-wait', '--prompt', `${gate('all')}; svc lane report --allow-unpushed --stdin <<<'report ${i}'`])
  // Two of the waits ask over the kernel's port: what is tested is the delivery by cursor (the CLI's lines have tests
  // of their own); one wait is the CLI, 20 processes in turn.
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
      const r = await h.svc(['lane', 'wait', '--run', 'r1', ...(cursor ? ['--after', cursor] : []), '--timeout', '60'])
      if (r.code !== 0) throw new Error(`wait exited ${r.code}: ${r.stderr}`)
      cursor = /--after (\S+)\n$/.exec(r.stderr)![1]
      seen.push({ body: r.stdout.trim(), cursor })
    }
    return seen
  }
  const followers = [follow('cli'), follow('port'), follow('port')]
  await new Promise((r) => setTimeout(r, 500))
  open('all')
  const results = await Promise.all(followers)
  const all = (await Promise.all(Array.from({ length: n }, (_, i) => reportsOf(`r1-k${i}-builder-i1`)[0]))).map((r: { at: number }, i) => ({ at: r.at, body: `report ${i}` }))
  const expected = all.sort((a, b) => a.at - b.at).map((r) => r.body)
  for (const seen of results) {
    assert.equal(seen.map((x) => x.body), expected)
    assert.is(new Set(seen.map((x) => x.body)).size, n)
  }
})

test('five lanes, four waits and a kernel killed between two rounds of reports: every wait gets every report once, in order', async () => {
  const n = 5
  for (let i = 0; i < n; i++)
    // First a blocked report (a done one would end the builder's iteration; blocked exits 4), then the done one.
    await start(['--key', `k${i}`, '--role', 'builder', '--no-wait', '--prompt', `${gate('a')}; svc lane report --status blocked --stdin <<<'BLOCKED k${i} first' || [ $? = 4 ]; ${gate('b')}; svc lane report --allow-unpushed --stdin <<<'k${i} second'`])
  const follow = async () => {
    const seen: string[] = []
    let cursor: string | undefined
    while (seen.length < 2 * n) {
      const r = await h.svc(['lane', 'wait', '--run', 'r1', ...(cursor ? ['--after', cursor] : []), '--timeout', '60'])
      if (r.code !== 0 && r.code !== 4) throw new Error(`wait exited ${r.code}: ${r.stderr}`)
      cursor = /--after (\S+)\n$/.exec(r.stderr)![1]
      seen.push(r.stdout.trim())
    }
    return seen
  }
  const followers = [follow(), follow(), follow()]
  // One wait on a single lane, asked before its second report and still waiting when the kernel dies.
  const single = (async () => {
    await until(() => existsSync(join(h.service, 'agents', 'conv-r1-k0-builder-i1', 'reports.json')) && reportsOf('r1-k0-builder-i1').length === 1, 'k0 first report', 30_000)
    return h.svc(['lane', 'wait', 'r1-k0-builder-i1', '--after', '1', '--timeout', '60'])
  })()
  await new Promise((r) => setTimeout(r, 500))
  open('a')
  await until(() => Array.from({ length: n }, (_, i) => `r1-k${i}-builder-i1`).every((name) => existsSync(join(h.service, 'agents', `conv-${name}`, 'reports.json')) && reportsOf(name).length === 1), 'the first round stored', 30_000)
  await new Promise((r) => setTimeout(r, 300))
  const k = h.kernelFile()!
  process.kill(k.pid, 'SIGKILL')
  await until(() => !alive(k.pid), 'kernel dead')
  open('b')
  // Settled, not raced: a failing wait must not leave the others to fail later, unheard.
  const results = (await Promise.allSettled(followers)).map((r) => {
    if (r.status === 'rejected') throw r.reason
    return r.value
  })
  const expected = Array.from({ length: n }, (_, i) => reportsOf(`r1-k${i}-builder-i1`).map((r: { at: number; body: string }) => r))
    .flat()
    .sort((a: { at: number }, b: { at: number }) => a.at - b.at)
    .map((r: { body: string }) => r.body.trim())
  assert.is(expected.length, 2 * n, 'every report stored, none lost to the kill')
  for (const seen of results) assert.equal(seen, expected, 'each wait: every report once, in the order they were stored')
  const w = await single
  assert.is(w.code, 0, w.stderr)
  assert.is(w.stdout, 'k0 second\n')
  assert.ok(h.kernelFile()!.pid !== k.pid, 'a new kernel served the second round')
})

test('a kernel restart during a wait is invisible: the wait reconnects and neither misses nor repeats a report', async () => {
  await start(['--key', 'b', '--role', 'builder', '--prompt', `${gate('1')}; svc lane report --allow-unpushed --stdin <<<'after restart'`])
  const pending = h.svc(['lane', 'wait', 'r1-b-builder-i1', '--timeout', '60'])
  await new Promise((r) => setTimeout(r, 500))
  const k = h.kernelFile()!
  process.kill(k.pid, 'SIGKILL')
  await until(() => !alive(k.pid), 'kernel dead')
  open('1')
  const w = await pending
  assert.is(w.code, 0, w.stderr)
  assert.is(w.stdout, 'after restart\n')
  assert.match(w.stderr, 'next: svc lane wait r1-b-builder-i1 --after 1\n')
  assert.ok(h.kernelFile()!.pid !== k.pid)
})

test.run()
