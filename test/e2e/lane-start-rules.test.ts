import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { alive, until } from '../helpers/home.js'
import { LaneWorld, q, sha, startLine, type Snapshot } from './lane-start-kit.js'

// `svc lane start`, who may launch what (SPEC.md 4.1 launch rules 1-3, 6-8, section 5): launchers and their runs,
// the project of a launch, one live lane per run/key/role, --reuse, --replace, the critic rules. Every refusal exits 1
// with one `svc: ` line and leaves nothing behind: no directory, branch, worktree, conversation or process. Usage and
// configuration refusals are in lane-start-usage.

// One home and kernel for the suite (its start is most of what a test here would cost): each test launches in a run
// of its own, with projects.yaml as the suite began and a directory of its own for what its lanes write.
let w: LaneWorld
let run = ''
let runs = 0
test.before(async () => {
  w = new LaneWorld('lane-rules')
  await w.begin()
})
let convs = 0
test.before.each(async () => {
  run = `r${++runs}`
  w.nextTest(run)
  convs = await w.convCount()
})

/** A snapshot's directories and branches of this test's run alone (and main), as a world of its own would hold. */
const ofRun = (s: Snapshot): Snapshot => ({
  ...s,
  lanes: s.lanes.filter((l) => l.startsWith(`${run}-`)),
  branches: s.branches
    .split('\n')
    .filter((b) => b === 'main' || b.startsWith(`${run}/`))
    .join('\n'),
})
test.after(async () => {
  await w.stop()
})

/** A bash function for lane scripts: `try <name> <svc lane start args...>` writes <name>.out, .err and .code. */
const tryFn = (out: string) =>
  `set +e\ntry() { n=$1; shift; svc lane start "$@" > ${q(out)}/$n.out 2> ${q(out)}/$n.err; echo $? > ${q(out)}` +
  `/$n.code; }\n`

const tried = (name: string) => ({
  code: Number(readFileSync(join(w.out, `${name}.code`), 'utf8')),
  out: readFileSync(join(w.out, `${name}.out`), 'utf8'),
  err: readFileSync(join(w.out, `${name}.err`), 'utf8'),
})

test('an orchestrator lane launches builders, verifiers and play lanes of its own run, and nothing else', async () => {
  const script =
    tryFn(w.out) +
    [
      "try builder --key x --role builder --harness none --model m --prompt 'build x'",
      "try verifier --key x --role verifier --harness none --model m --prompt 'verify x'",
      "try play --key x --role play --harness none --model m --prompt 'play'",
      "try critic --for x --role critic --harness none --model m --at HEAD --prompt 'judge'",
      "try orch --key sub --role orchestrator --harness none --model m --prompt 'sub'",
      "try otherrun --run r9 --key y --role builder --harness none --model m --prompt 'b'",
      `touch ${q(join(w.out, 'orch-done'))}`,
    ].join('\n')
  const o = await w.started([
    '--run',
    run,
    '--key',
    'lead',
    '--role',
    'orchestrator',
    '--harness',
    'shell',
    '--prompt',
    script,
  ])
  await w.outFile('orch-done', 'the orchestrator script')

  const b = tried('builder')
  assert.is(b.code, 0, b.err)
  const bid = /conv (\d+) /.exec(b.out)?.[1] ?? ''
  assert.is(
    b.out,
    startLine(run, 'x', 'builder', 1, bid, `${run}-x-builder-i1`, join(w.lanes, `${run}-x`)),
    'the run is inherited',
  )
  const bv = await w.show(bid)
  assert.is(bv.parent, o.id)
  assert.is(bv.lane.run, run)
  assert.is(tried('verifier').code, 0)
  assert.is(tried('play').code, 0)
  assert.equal(tried('critic'), {
    code: 1,
    out: '',
    err: 'svc: refused: an orchestrator lane cannot launch a critic lane; only a root conversation can\n',
  })
  assert.equal(tried('orch'), {
    code: 1,
    out: '',
    err: 'svc: refused: an orchestrator lane cannot launch an orchestrator lane; only a root conversation can\n',
  })
  assert.equal(tried('otherrun'), {
    code: 1,
    out: '',
    err: `svc: refused: an orchestrator lane of run ${run} launches only into its own run, not r9\n`,
  })

  const s = ofRun(await w.snapshot())
  assert.equal(
    s.lanes,
    [`${run}-lead-orch`, `${run}-x`, `${run}-x-play-i1`, `${run}-x-verify-i1`],
    'the refused launches left no directory',
  )
  assert.is(s.branches, `main\n${run}/x`)
  assert.is(s.convs, convs + 4, 'the orchestrator, builder, verifier and play lane')
})

test('builder and critic lanes, and a successor of a builder, are refused a launch (one role each; the table is in launch-who)', async () => {
  // One role per launcher, end to end: that every role is refused to every one of them is the table of SPEC.md
  // section 5 in test/domain/launch-who ('mayLaunch: the full table…'), a successor's standing its effectiveLauncher
  // rows.
  const tries = { builder: 'builder', succ: 'play', critic: 'orchestrator' } as const
  const attempts = (who: keyof typeof tries) =>
    `try ${who}-${tries[who]} --run ${run} --key n --role ${tries[who]} --harness none --model m --at HEAD --prompt x`
  // --at is refused for builder and play lanes, but only after the launcher: the launcher rule speaks first.
  writeFileSync(join(w.out, 'succ.sh'), tryFn(w.out) + attempts('succ') + `\ntouch ${q(join(w.out, 'succ-done'))}\n`)
  const builderScript =
    tryFn(w.out) +
    attempts('builder') +
    `\nsvc handoff --harness shell --prompt "$(cat ${q(join(w.out, 'succ.sh'))})" > ${q(join(w.out, 'succ.id'))}` +
    `\ntouch ${q(join(w.out, 'builder-done'))}`
  const b = await w.started([
    '--run',
    run,
    '--key',
    'b',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    builderScript,
  ])
  await w.outFile('builder-done')
  await w.outFile('succ-done')
  await w.started([
    '--run',
    run,
    '--for',
    'b',
    '--role',
    'critic',
    '--at',
    'origin/main',
    '--harness',
    'shell',
    '--prompt',
    tryFn(w.out) + attempts('critic') + `\ntouch ${q(join(w.out, 'critic-done'))}`,
  ])
  await w.outFile('critic-done')
  for (const who of ['builder', 'succ', 'critic'] as const)
    assert.equal(
      tried(`${who}-${tries[who]}`),
      {
        code: 1,
        out: '',
        err: `svc: refused: a ${who === 'critic' ? 'critic' : 'builder'} lane cannot launch lanes\n`,
      },
      `${who} launching a ${tries[who]}`,
    )
  const succ = await w.show(readFileSync(join(w.out, 'succ.id'), 'utf8').trim())
  assert.is(succ.parent, b.id)
  const s = ofRun(await w.snapshot())
  assert.equal(s.lanes, [`${run}-b`, `${run}-b-critic-i1`])
  assert.is(s.branches, `main\n${run}/b`)
  assert.is(s.convs, convs + 3, 'builder, its successor, critic')
})

test('a handed-off orchestrator keeps its standing: its successor launches a builder of the run, not a critic', async () => {
  writeFileSync(
    join(w.out, 'succ.sh'),
    tryFn(w.out) +
      "try sb --key y --role builder --harness none --model m --prompt 'build y'\ntry sc --for y --role critic " +
      '--harness none --model m --at HEAD --prompt c\n' +
      `touch ${q(join(w.out, 'succ-done'))}\n`,
  )
  const o = await w.started([
    '--run',
    run,
    '--key',
    'lead',
    '--role',
    'orchestrator',
    '--harness',
    'shell',
    '--prompt',
    `svc handoff --harness shell --prompt "$(cat ${q(join(w.out, 'succ.sh'))})" > ${q(join(w.out, 'succ.id'))}`,
  ])
  await w.outFile('succ-done', 'the successor script')
  const succId = readFileSync(join(w.out, 'succ.id'), 'utf8').trim()
  const succ = await w.show(succId)
  assert.is(succ.kind, 'successor')
  assert.is(succ.parent, o.id)
  const sb = tried('sb')
  assert.is(sb.code, 0, sb.err)
  const id = /conv (\d+) /.exec(sb.out)?.[1] ?? ''
  assert.is(sb.out, startLine(run, 'y', 'builder', 1, id, `${run}-y-builder-i1`, join(w.lanes, `${run}-y`)))
  assert.is((await w.show(id)).parent, succId, 'the builder nests under the successor that launched it')
  assert.equal(tried('sc'), {
    code: 1,
    out: '',
    err: 'svc: refused: an orchestrator lane cannot launch a critic lane; only a root conversation can\n',
  })

  // A successor of a root is no lane: it keeps the root's standing, critics included.
  const rootSucc = (await w.h.ok(['handoff', '--harness', 'none'], { env: { SERVICE_CONVERSATION: w.root } })).trim()
  const c = await w.started(
    [
      '--run',
      run,
      '--for',
      'y',
      '--role',
      'critic',
      '--at',
      'origin/main',
      '--model',
      'm',
      '--harness',
      'none',
      '--prompt',
      'judge',
    ],
    { as: rootSucc },
  )
  assert.is((await w.show(c.id)).parent, rootSucc)
})

test("the project of a launch: --project, else the launcher's, else the checkout holding the current directory", async () => {
  const bare = (await w.h.ok(['conv', 'new', '--harness', 'none', '--cwd', w.h.home])).trim()
  const args = ['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x']
  await w.refused(
    args,
    'svc: no project for this launch: pass --project, or run from inside a checkout listed in projects.yaml\n',
    { as: bare, cwd: w.h.home },
  )
  const a = await w.started(args, { as: bare, cwd: join(w.project.checkout, 'src') })
  assert.is(a.cwd, join(w.lanes, `${run}-k`))
  assert.is((await w.show(a.id)).project, 'sample')
  const b = await w.started(
    ['--run', run, '--key', 'k2', '--role', 'builder', '--project', 'sample', '--harness', 'none', '--prompt', 'x'],
    { as: bare, cwd: w.h.home },
  )
  assert.is(b.cwd, join(w.lanes, `${run}-k2`))
})

test('one live lane per run, key and role: a starting lane counts; --replace stops the live one first', async () => {
  const a = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  assert.is((await w.show(a.id)).activity, 'starting')
  await w.refused(
    ['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'],
    `svc: lane ${run}/k builder i1 is live (conv ${a.id}); pass --replace to stop it and launch anew\n`,
  )
  // Another role or another key of the same run is a different lane.
  await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'verifier',
    '--model',
    'm',
    '--harness',
    'none',
    '--prompt',
    'x',
  ])
  await w.started(['--run', run, '--key', 'k2', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])

  const s = await w.started([
    '--run',
    run,
    '--key',
    'sh',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    'sleep 30',
  ])
  await w.until(s.id, 'working')
  const state = JSON.parse(w.agentFile(s.name, 'state.json'))
  assert.ok(alive(state.harness.pid))
  await w.refused(
    ['--run', run, '--key', 'sh', '--role', 'builder', '--harness', 'shell', '--prompt', 'sleep 30'],
    `svc: lane ${run}/sh builder i1 is live (conv ${s.id}); pass --replace to stop it and launch anew\n`,
  )
  const r = await w.started([
    '--run',
    run,
    '--key',
    'sh',
    '--role',
    'builder',
    '--replace',
    '--harness',
    'shell',
    '--prompt',
    'sleep 30',
  ])
  assert.is(r.line, startLine(run, 'sh', 'builder', 2, r.id, `${run}-sh-builder-i2`, join(w.lanes, `${run}-sh-i2`)))
  assert.not.ok(alive(state.harness.pid), 'the replaced harness is gone')
  assert.not.ok(alive(state.runner.pid), 'its runner is gone')
  assert.is((await w.show(s.id)).activity, 'stopped')
  assert.is((await w.show(r.id)).activity, 'working')

  const n = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--replace',
    '--harness',
    'none',
    '--prompt',
    'x',
  ])
  assert.is(n.iteration, 2)
  assert.is((await w.show(a.id)).activity, 'stopped', 'a harness-none lane is replaced too')
})

test('--reuse: the same directory and iteration in a new conversation; refused while live or with no earlier lane', async () => {
  await w.refused(
    ['--run', run, '--key', 'k', '--role', 'builder', '--reuse', '--harness', 'none', '--prompt', 'x'],
    `svc: refused: no earlier builder lane ${run}/k to reuse\n`,
  )
  const a = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    'echo wip > wip.txt',
  ])
  await w.until(a.id, 'stopped')
  const before = await w.snapshot()
  const b = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--reuse',
    '--harness',
    'shell',
    '--prompt',
    'cat wip.txt > seen.txt\nsleep 30',
  ])
  assert.is(b.line, startLine(run, 'k', 'builder', 1, b.id, `${run}-k-builder-i1-2`, join(w.lanes, `${run}-k`)))
  assert.is.not(b.id, a.id)
  const after = await w.snapshot()
  assert.equal(after.lanes, before.lanes, 'no new directory')
  assert.is(after.branches, before.branches, 'no new branch')
  assert.is(after.convs, before.convs + 1)
  const v = await w.show(b.id)
  assert.equal(
    [v.lane.iteration, v.lane.dir, v.lane.branch, v.cwd],
    [1, `${run}-k`, `${run}/k`, join(w.lanes, `${run}-k`)],
  )
  assert.ok(w.agentFile(b.name, 'contract.md').includes('- Iteration: i1'))
  const seen = join(w.lanes, `${run}-k`, 'seen.txt')
  await until(() => existsSync(seen) && readFileSync(seen, 'utf8'), 'the respawn read the earlier work', 30_000)
  assert.is(readFileSync(seen, 'utf8'), 'wip\n', 'the earlier work is there')

  await w.refused(
    ['--run', run, '--key', 'k', '--role', 'builder', '--reuse', '--harness', 'none', '--prompt', 'x'],
    `svc: lane ${run}/k builder i1 is live (conv ${b.id}); pass --replace to stop it and launch anew\n`,
  )
  const c = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--reuse',
    '--replace',
    '--harness',
    'none',
    '--prompt',
    'x',
  ])
  assert.is(c.line, startLine(run, 'k', 'builder', 1, c.id, `${run}-k-builder-i1-3`, join(w.lanes, `${run}-k`)))
  assert.is((await w.show(b.id)).activity, 'stopped')
})

test('critic rules: --for required, --key must match it, the builder must exist, and without --at a done report', async () => {
  const b = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  const critic = ['--role', 'critic', '--run', run, '--harness', 'none', '--prompt', 'judge']
  await w.refused([...critic, '--key', 'k'], 'svc: a critic needs --for <builder key>\n')
  await w.refused(
    [...critic, '--for', 'k', '--key', 'j'],
    'svc: --key j differs from --for k; a critic takes the key of the builder it judges\n',
  )
  await w.refused([...critic, '--for', 'zz'], `svc: refused: no builder zz in run ${run}\n`)
  await w.refused([...critic, '--for', 'k'], 'svc: builder k i1 has no done report; pass --at <sha>\n')
  await w.refused(
    ['--role', 'verifier', '--run', run, '--for', 'k', '--model', 'm', '--harness', 'none', '--prompt', 'v'],
    'svc: builder k i1 has no done report; pass --at <sha>\n',
  )
  await w.refused(
    [...critic, '--for', 'k', '--at', 'deadbeef'],
    `svc: refused: --at deadbeef names no commit in ${w.project.checkout}\n`,
  )
  await w.refused(
    ['--role', 'builder', '--run', run, '--for', 'k', '--harness', 'none', '--prompt', 'x'],
    'svc: --for is for critic and verifier lanes, not builder\n',
  )
  const c = await w.started([...critic, '--for', 'k', '--at', 'origin/main'])
  assert.is(c.line, startLine(run, 'k', 'critic', 1, c.id, `${run}-k-critic-i1`, join(w.lanes, `${run}-k-critic-i1`)))
  assert.is((await w.show(c.id)).lane.for.id, b.id)
})

test('a critic respawned with --reuse keeps its directory and the builder row it judged', async () => {
  const b1 = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  const at = sha(w.project.checkout, 'origin/main')
  const c1 = await w.started([
    '--run',
    run,
    '--for',
    'k',
    '--role',
    'critic',
    '--at',
    at,
    '--harness',
    'none',
    '--prompt',
    'judge',
  ])
  await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--replace', '--harness', 'none', '--prompt', 'x'])
  await w.refused(
    [
      '--run',
      run,
      '--for',
      'k',
      '--role',
      'critic',
      '--reuse',
      '--replace',
      '--at',
      at,
      '--harness',
      'none',
      '--prompt',
      'again',
    ],
    `svc: --at does not go with --reuse: the lane continues in ${run}-k-critic-i1 as it is\n`,
  )
  const c2 = await w.started([
    '--run',
    run,
    '--for',
    'k',
    '--role',
    'critic',
    '--reuse',
    '--replace',
    '--harness',
    'none',
    '--prompt',
    'again',
  ])
  assert.is(
    c2.line,
    startLine(run, 'k', 'critic', 1, c2.id, `${run}-k-critic-i1-2`, join(w.lanes, `${run}-k-critic-i1`)),
  )
  assert.equal(
    (await w.show(c2.id)).lane.for,
    { id: b1.id, key: 'k', iteration: 1, sha: at },
    'still judging builder i1',
  )
  assert.ok(w.agentFile(c2.name, 'contract.md').includes(`You judge builder k i1 at commit ${at}`))
  assert.is((await w.show(c1.id)).activity, 'stopped')
})

test.run()
