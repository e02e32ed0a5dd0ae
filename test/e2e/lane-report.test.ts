import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, git, until, written } from '../helpers/home.js'
import { buildAndReport, type Setup } from '../helpers/project.js'
import { reportSuite } from './report-kit.js'

// `svc lane report` (SPEC.md 4.1 report rules): who may report, a builder's gates, blocked and failed, critic and
// verifier verdicts. What waits get is in lane-wait.

let h: TestHome
let s: Setup
const { start, gate, open, reportsOf } = reportSuite((w) => ({ h, s } = w))

test('report outside a lane, and inside a successor of a lane: not inside a lane', async () => {
  const outside = await h.svc(['lane', 'report', '--stdin'], { input: 'x', env: s.env })
  assert.is(outside.code, 1)
  assert.is(outside.stderr, 'svc: not inside a lane\n')
  const unset = await h.svc(['lane', 'report', '--stdin'], { input: 'x', env: { SERVICE_CONVERSATION: undefined } })
  assert.is(unset.code, 1)
  assert.is(unset.stderr, 'svc: not inside a lane\n')
  await start([
    '--key',
    'o',
    '--role',
    'orchestrator',
    '--prompt',
    `svc handoff --harness none > ${h.home}/succ; ${gate('1')}`,
  ])
  const succ = (await until(
    () => existsSync(join(h.home, 'succ')) && readFileSync(join(h.home, 'succ'), 'utf8').trim(),
    'successor id',
  )) as string
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
  await written(join(h.home, 'c4'), 'script end')
  const read = (f: string) => readFileSync(join(h.home, f), 'utf8')
  assert.is(read('c1').trim(), '1')
  assert.is(
    read('e1'),
    'svc: refused: a builder reports done only from a clean tree; commit or remove the changes (git status shows ' +
      'them)\n',
  )
  assert.is(read('c2').trim(), '1')
  assert.is(read('e2'), 'svc: refused: branch r1/b has no upstream; push it with git push -u origin HEAD\n')
  assert.is(read('c3').trim(), '0')
  assert.is(read('o3'), 'report #1 filed: r1/b builder i1 done\n')
  assert.is(read('c4').trim(), '1')
  assert.is(
    read('e4'),
    'svc: refused: branch r1/b is frozen: builder b i1 reported done (report #1); start a new iteration\n',
  )
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
  await written(join(h.home, 'c2'), 'script end')
  assert.is(
    readFileSync(join(h.home, 'e1'), 'utf8'),
    'svc: refused: 1 commit(s) on r1/b are not on origin/r1/b; push them first\n',
  )
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
  await written(join(h.home, 'c3'), 'script end')
  assert.is(
    readFileSync(join(h.home, 'e1'), 'utf8'),
    'svc: refused: a blocked report must begin with one of the words RULING, SPEND, ONE-WAY, BLOCKED\n',
  )
  assert.is(readFileSync(join(h.home, 'c1'), 'utf8').trim(), '1', 'a refusal exits 1')
  assert.is(readFileSync(join(h.home, 'c2'), 'utf8').trim(), '4')
  assert.is(readFileSync(join(h.home, 'c3'), 'utf8').trim(), '4')
  const w1 = await h.svc(['lane', 'wait', 'r1-b-builder-i1'])
  assert.is(w1.code, 4)
  assert.is(w1.stdout, 'SPEND: need a paid API key\n')
  assert.is(
    w1.stderr,
    `report #1 blocked from r1/b builder i1 (conv ${await idOf('r1-b-builder-i1')})\nnext: svc lane wait ` +
      `r1-b-builder-i1 --after 1\n`,
  )
  const w2 = await h.svc(['lane', 'wait', 'r1-b-builder-i1', '--after', '1'])
  assert.is(w2.code, 4)
  assert.is(w2.stdout, 'The brief cannot be done\n')
  assert.match(w2.stderr, 'next: svc lane wait r1-b-builder-i1 --after 2\n')
  const w3 = await h.svc(['lane', 'wait', 'conv-r1-b-builder-i1', '--after', '2', '--timeout', '0.5'])
  assert.is(w3.code, 3)
  assert.is(w3.stdout, '')
  assert.is(
    w3.stderr,
    'svc: timed out after 0.5 s; still running\nnext: svc lane wait conv-r1-b-builder-i1 --after 2\n',
  )
  open('1')
  const w4 = await h.svc(['lane', 'wait', 'r1-b-builder-i1', '--after', '2'])
  assert.is(w4.code, 2)
  assert.is(
    w4.stderr,
    'svc: lane r1/b builder i1 exited (stopped: process exit) with no report\nnext: svc lane wait r1-b-builder-i1 ' +
      '--after 2\n',
  )
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
    `svc lane report --stdin --status blocked --verdict NOT_YET <<<'BLOCKED x' 2> ${h.home}/e2 || echo $? > ` +
      `${h.home}/c2`,
    `svc lane report --stdin --verdict MAYBE <<<'x' 2> ${h.home}/e3 || echo $? > ${h.home}/c3`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${h.home}/bad.json <<<'x' 2> ${h.home}/e4 || echo $? ` +
      `> ${h.home}/c4`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${h.home}/nojson.json <<<'x' 2> ${h.home}/e5 || echo ` +
      `$? > ${h.home}/c5`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${h.home}/missing.json <<<'x' 2> ${h.home}/e6 || echo ` +
      `$? > ${h.home}/c6`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${v} <<<'three defects'`,
    `svc lane report --stdin --verdict WOWED <<<'again' 2> ${h.home}/e7 || echo $? > ${h.home}/c7`,
  ].join('\n')
  await start(['--for', 'b', '--role', 'critic', '--prompt', script])
  // Eight svc calls, each a Node start: 30 s, not 15.
  await written(join(h.home, 'c7'), 'critic script end', 30_000)
  const e = (n: number) => readFileSync(join(h.home, `e${n}`), 'utf8')
  assert.is(e(1), "svc: refused: a critic's done report needs its verdict: --verdict WOWED|IMPRESSED|NOT_YET\n")
  assert.is(e(2), 'svc: refused: a verdict goes with a done report, not a blocked one\n')
  assert.is(e(3), "svc: --verdict must be one of WOWED, IMPRESSED, NOT_YET, PASS, DEFECTS, not 'MAYBE'\n")
  assert.is(e(4), `svc: verdict file ${h.home}/bad.json has no array named defects\n`)
  assert.match(e(5), `svc: verdict file ${h.home}/nojson.json is not JSON: `)
  assert.is(e(6), `svc: cannot read the verdict file ${h.home}/missing.json: ENOENT\n`)
  assert.is(e(7), 'svc: refused: this critic has already filed its done report with its verdict\n')
  for (let n = 1; n <= 7; n++)
    assert.is(readFileSync(join(h.home, `c${n}`), 'utf8').trim(), '1', `refusal ${n} exits 1`)
  const reports = reportsOf('r1-b-critic-i1')
  assert.is(reports.length, 1)
  assert.is(reports[0].verdict, 'NOT_YET')
  assert.is(reports[0].defects, 3)
  assert.is(reports[0].judged, head, 'the verdict is bound to the judged commit')
  assert.is(readFileSync(reports[0].verdictFile, 'utf8'), readFileSync(v, 'utf8'))
})

test('--verdict from a builder is refused; --defects overrides the count', async () => {
  await start([
    '--key',
    'b',
    '--role',
    'builder',
    '--prompt',
    `svc lane report --stdin --verdict WOWED <<<'x' 2> ${h.home}/e1 || echo $? > ${h.home}/c1; ${buildAndReport('ok')}`,
  ])
  await h.ok(['lane', 'wait', 'r1-b-builder-i1'])
  assert.is(
    readFileSync(join(h.home, 'e1'), 'utf8'),
    'svc: refused: a builder files no verdict; --verdict is for critic and verifier lanes\n',
  )
  assert.is(readFileSync(join(h.home, 'c1'), 'utf8').trim(), '1')
  await start([
    '--key',
    'all',
    '--role',
    'verifier',
    '--prompt',
    `svc lane report --stdin --verdict DEFECTS --defects 7 <<<'seven'`,
  ])
  const w = await h.svc(['lane', 'wait', 'r1-all-verifier-i1'])
  assert.is(w.code, 0)
  assert.match(w.stderr, 'report #1 done DEFECTS (7 defects) from r1/all verifier i1')
})

test.run()
