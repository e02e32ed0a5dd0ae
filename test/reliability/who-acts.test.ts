import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, processesOfHome, until, written } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { procStat } from '../../kernel/io/procs.js'
import { pidNamespaceProbe } from '../../kernel/io/subreaper.js'
import { assertEndsWithRunner } from './escape-kit.js'
import { recordFigure } from './figures.js'

// Who acts as whom is known from the process behind the connection, not from what the caller's environment says:
// a lane that read another lane's key from /proc cannot act as it, and a sibling can neither answer, stop, reap nor
// tell it. A lane's launcher chain and the person still can.

let h: TestHome
let s: Setup
test.before(async () => {
  h = new TestHome('who-acts')
  s = await setupProject(h)
})
test.after(() => h.stop())

const start = (args: string[], run = 'r1') => h.ok(['lane', 'start', '--run', run, ...args], { env: s.env })
const idOf = (line: string) => /conv (\d+) \(([^)]+)\)/.exec(line)!.slice(1, 3)
const read = (f: string) => readFileSync(join(h.home, f), 'utf8')
/** One step of a `bash -e` script that goes on whatever the command's exit: its code in c<n>, its stderr in e<n>. */
const step = (n: number, cmd: string) =>
  `${cmd} 2> ${h.home}/e${n} && echo 0 > ${h.home}/c${n} || echo $? > ${h.home}/c${n}`
/** A step run by a process that left its lane's tree, without SERVICE_CONVERSATION or its key: `$V` is the outer
 * shell's, the exit code the inner one's. */
const escaped = (n: number, cmd: string) =>
  step(n, `env -u SERVICE_CONVERSATION -u SERVICE_CONVERSATION_KEY ${cmd}`).replace('$?', '\\$?')
/** The process of this home whose environment holds `mark`, as the machine's /proc names it. */
const markedProcess = (mark: string): number | undefined =>
  processesOfHome(h.service).find((p) => {
    try {
      return readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(mark)
    } catch {
      return false
    }
  })

/** A conversation of this home's key, from the environment of one of its processes, as the machine's /proc shows
 * them. */
const keyOf = (conv: string): string | undefined => {
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue
    try {
      const env = readFileSync(`/proc/${p}/environ`, 'utf8').split('\0')
      if (env.includes(`SERVICE_CONVERSATION=${conv}`) && env.includes(`SERVICE_HOME=${h.service}`))
        return env.find((e) => e.startsWith('SERVICE_CONVERSATION_KEY='))?.slice('SERVICE_CONVERSATION_KEY='.length)
    } catch {}
  }
  return undefined
}
const inbox = (name: string) => {
  const f = join(h.service, 'agents', `conv-${name}`, 'inbox.jsonl')
  return existsSync(f)
    ? readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []
}

test("a lane that read a sibling's key from /proc can neither report as it nor answer, stop, reap or tell it", async () => {
  const [v, vName] = idOf(await start(['--key', 'victim', '--role', 'builder', '--prompt', 'sleep 60']))
  // The attacker looks for the victim's shell among all processes, to take its key from its environment. In a PID
  // namespace of its own, with a /proc of its own, a lane sees only its own processes; the key is then handed to it
  // as if it had leaked some other way, so that what a stolen key does is tried all the same.
  const steal = [
    `V=${v}`,
    `for e in /proc/[0-9]*/environ; do`,
    // Only this home's processes: other homes on the machine have a conv ${v} too.
    `  if tr '\\0' '\\n' < $e 2>/dev/null | grep -qx "SERVICE_CONVERSATION=$V" &&`,
    `     tr '\\0' '\\n' < $e 2>/dev/null | grep -qx "SERVICE_HOME=${h.service}"; then`,
    `    K=$(tr '\\0' '\\n' < $e | sed -n 's/^SERVICE_CONVERSATION_KEY=//p'); [ -n "$K" ] && break`,
    `  fi`,
    `done`,
    `echo "\${K:+stolen}" > ${h.home}/stolen`,
    `K=\${K:-$(cat ${h.home}/leaked-key)}`,
    step(1, `SERVICE_CONVERSATION=$V SERVICE_CONVERSATION_KEY=$K svc lane report --status failed --stdin <<<'forged'`),
    step(2, `svc conv answer $V allow`),
    step(3, `svc lane stop $V`),
    step(4, `svc lane reap $V`),
    step(5, `(unset SERVICE_CONVERSATION; svc tell $V 'from a sibling')`),
    step(6, `SERVICE_CONVERSATION_KEY=$K svc tell $V 'with the stolen key'`),
    step(7, `svc conv archive $V`),
    step(8, `svc host add far --ssh me@127.0.0.1`),
    step(9, `svc host remove far`),
    step(10, `svc kernel stop`),
    step(11, `svc deck --revoke`),
    // Leaving the tree on purpose, as no conversation, with no hold on the lane's output (as a daemon): a new session
    // whose parent exits at once (calling only once the lane's harness, this script, has ended), and a double fork.
    `setsid -f sh -c "while kill -0 $$ 2>/dev/null; do sleep 0.05; done; ${escaped(13, 'svc lane stop $V')}" < ` +
      `/dev/null > /dev/null 2>&1`,
    `( setsid sh -c "${escaped(14, 'svc conv answer $V allow')}" < /dev/null > /dev/null 2>&1 & )`,
  ]
  // Started only once the victim's shell runs, so that its environment is there to read.
  await written(join(h.service, 'agents', `conv-${vName}`, 'state.json'), 'the victim to start')
  writeFileSync(join(h.home, 'leaked-key'), (await until(() => keyOf(v), "the victim's key in its environment"))!)
  const [a] = idOf(await start(['--key', 'attacker', '--role', 'builder', '--prompt', steal.join('\n')]))
  // Eleven svc calls, each a Node start, after a look through every process's environment: 30 s, not 15.
  await written(join(h.home, 'c11'), 'the attacker script to end', 30_000)
  await written(join(h.home, 'c13'), 'the escaped stop')
  await written(join(h.home, 'c14'), 'the escaped answer')

  const namespaces = await pidNamespaceProbe()
  assert.is(
    read('stolen').trim(),
    namespaces.ok ? '' : 'stolen',
    namespaces.ok ? "a lane sees none of its sibling's processes" : 'the key was readable: the attack is real',
  )
  const outcome = (n: number) => [read(`c${n}`).trim(), read(`e${n}`)]
  const notInChain = (what: string) => [
    '1',
    `svc: refused: ${what}: conv ${a} is not in the launcher chain of conv ${v}\n` +
      `hint: only the person or the conversations that launched conv ${v} may do this\n`,
  ]
  assert.equal(outcome(1), [
    '1',
    `svc: refused: svc lane report: this process belongs to conv ${a}, so it cannot act as conv ${v}\n` +
      'hint: a conversation acts only as itself, whatever SERVICE_CONVERSATION and its key say\n',
  ])
  assert.equal(outcome(2), notInChain('svc conv answer'), 'answer')
  assert.equal(outcome(3), notInChain('svc lane stop'), 'stop')
  assert.equal(outcome(4), notInChain('svc lane reap'), 'reap')
  assert.equal(outcome(5), notInChain('svc tell'), 'tell with SERVICE_CONVERSATION unset')
  assert.equal(outcome(6), [
    '1',
    `svc: refused: svc tell: the key given is conv ${v}'s, not conv ${a}'s\n` +
      'hint: a conversation acts only as itself: SERVICE_CONVERSATION must name the conversation its key was given ' +
      'to\n',
  ])
  assert.equal(outcome(7), notInChain('svc conv archive'), 'archive')
  const notTheirs = (what: string) => [
    '1',
    `svc: refused: ${what}: conv ${a} is a builder lane; only the person or a root conversation may do this\n` +
      'hint: run it from your own shell, outside any lane\n',
  ]
  assert.equal(outcome(8), notTheirs('svc host add'), 'host add')
  assert.equal(outcome(9), notTheirs('svc host remove'), 'host remove')
  assert.equal(outcome(10), notTheirs('svc kernel stop'), 'kernel stop')
  assert.equal(outcome(11), notTheirs('svc deck --revoke'), 'deck revoke')
  assert.not.ok(existsSync(join(h.service, 'hosts.yaml')), 'no host written')
  assert.equal(outcome(13), notInChain('svc lane stop'), 'stop from a new session, after its lane’s harness ended')
  assert.equal(outcome(14), notInChain('svc conv answer'), 'answer from a double fork into a new session')

  // Nothing happened to the victim: no report, no message, still working.
  assert.not.ok(existsSync(join(h.service, 'agents', `conv-${vName}`, 'reports.json')), 'no report filed as it')
  assert.equal(inbox(vName), [])
  const show = JSON.parse(await h.ok(['lane', 'show', v, '--json']))
  assert.is(show.lanes.find((l: { id: string }) => l.id === v).activity, 'working')

  // The person still may stop it.
  await h.ok(['lane', 'stop', v])
  recordFigure(
    "identity theft from /proc: a lane reads a running sibling's key from its environment and reports as it, " +
      'answers, stops, reaps and tells it',
    '13 attempts, 13 refused on one line (report, answer, stop, reap, tell twice, archive, host add and remove, ' +
      'kernel stop, deck revoke, and a stop and an answer from processes that left the lane’s tree by setsid and a ' +
      'double fork); the sibling kept working with no report and no message',
  )
})

test('a stop ends what its lane left running in a session of its own, so that it never calls as the person', async () => {
  // The lane leaves a process in a new session whose parent exits (adopted by the runner), then its harness ends; the
  // runner stays for what it adopted. Once the lane is stopped, that process would be no conversation's: it must
  // not outlive the stop.
  // Marked in its environment, so that this test finds it in the machine's /proc (a lane's pids are its namespace's).
  const leave =
    `setsid -f sh -c 'echo left > ${h.home}/left; LEFT_BY_LANE=r4 exec sleep 60' < /dev/null > ` + `/dev/null 2>&1`
  const [l, lName] = idOf(await start(['--key', 'leaves', '--role', 'builder', '--prompt', leave], 'r4'))
  await written(join(h.home, 'left'), 'the process that left the tree')
  const pid = (await until(() => markedProcess('LEFT_BY_LANE=r4'), 'the process that left the tree, in /proc'))!
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-${lName}`, 'state.json'), 'utf8'))
  const started = procStat(pid)
  assert.ok(started && started.state !== 'Z', 'the process that left the tree runs')
  assert.is(started!.ppid, state.runner.pid, "it was adopted by its lane's runner")
  assert.is.not(started!.pgid, state.runner.pid, "it is out of its runner's process group")

  await h.ok(['lane', 'stop', l])
  const after = procStat(pid)
  assert.ok(
    !after || after.start !== started!.start || after.state === 'Z',
    `the process the lane left running still runs after its stop (parent ${after?.ppid})`,
  )
  recordFigure(
    'a process a lane left in a session of its own, adopted by its runner, when the lane is stopped',
    'ended by the stop (before, it was released to init and its calls were taken as the person’s)',
  )
})

test('a lane process that leaves its group and session cannot kill its runner, acts as its lane, and dies with it', async () => {
  const namespaces = await pidNamespaceProbe()
  if (!namespaces.ok)
    return console.log(`  (no PID namespace per lane here: ${namespaces.problem}; svc doctor says so)`)
  const [v] = idOf(await start(['--key', 'victim2', '--role', 'builder', '--prompt', 'sleep 60'], 'r5'))
  // The harness (this script) leaves its group and session (setsid -f: its parent exits, a double fork) and tries to
  // kill its runner, as its namespace names it (1) and by every runner's pid the service home's state files give,
  // then calls without its variables, its output nowhere the runner reads.
  const escaped = [
    `kill -9 1 $(cat $SERVICE_HOME/agents/*/state.json | grep -o '"runner":{"pid":[0-9]*' | grep -o '[0-9]*$') 2> ` +
      `${h.home}/kill-errors`,
    step(31, `env -u SERVICE_CONVERSATION -u SERVICE_CONVERSATION_KEY svc lane stop ${v}`),
    step(32, `env -u SERVICE_CONVERSATION -u SERVICE_CONVERSATION_KEY svc conv answer ${v} allow`),
    `echo escaped > ${h.home}/escaped`,
    'LEFT_BY_LANE=r5 exec sleep 60',
  ].join('; ')
  const script = [
    `exec > /dev/null`,
    `setsid -f sh -c '${escaped.replace(/'/g, `'"'"'`)}' < /dev/null > /dev/null 2>&1`,
    `sleep 60`,
  ]
  const [a, aName] = idOf(await start(['--key', 'kills', '--role', 'builder', '--prompt', script.join('\n')], 'r5'))
  await written(join(h.home, 'escaped'), 'the calls after the runner was to be killed')
  const notInChain = (what: string) => [
    '1',
    `svc: refused: ${what}: conv ${a} is not in the launcher chain of conv ${v}\n` +
      `hint: only the person or the conversations that launched conv ${v} may do this\n`,
  ]
  assert.equal([read('c31').trim(), read('e31')], notInChain('svc lane stop'), 'stop')
  assert.equal([read('c32').trim(), read('e32')], notInChain('svc conv answer'), 'answer')
  const show = JSON.parse(await h.ok(['lane', 'show', v, '--json']))
  assert.is(show.lanes.find((l: { id: string }) => l.id === v).activity, 'working')

  const runner = JSON.parse(readFileSync(join(h.service, 'agents', `conv-${aName}`, 'state.json'), 'utf8')).runner
  assert.ok(procStat(runner.pid)?.start === runner.start, `the runner outlived the kill (${read('kill-errors')})`)
  const left = (await until(() => markedProcess('LEFT_BY_LANE=r5'), 'the process that left, in /proc'))!
  await assertEndsWithRunner(runner, left)
  await h.ok(['lane', 'stop', v])
  recordFigure(
    'a lane process that leaves its group and session, tries to kill its runner (SIGKILL), then stops and answers a ' +
      'sibling without its variables',
    "the runner survives (it is init of the lane's own PID namespace); both calls refused on one line as from the " +
      'lane; killed from outside, the runner takes the process with it',
  )
})

test('a request whose sender closed its connection before the kernel looked is refused, not taken as the person', async () => {
  const [v] = idOf(await start(['--key', 'victim3', '--role', 'builder', '--prompt', 'sleep 60'], 'r6'))
  const k = h.kernelFile()!
  const body = JSON.stringify({ lane: v })
  const request =
    'POST /rpc/laneStop HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n' +
    `Authorization: Bearer ${k.token}\\r\\nContent-Type: application/json\\r\\n` +
    `Content-Length: ${body.length}\\r\\nConnection: close\\r\\n\\r\\n${body}`
  // The sibling sends a whole stop and closes its end at once: no process holds the caller's socket any more.
  const script = [
    `while [ ! -e ${h.home}/go ]; do sleep 0.05; done`,
    `exec 3<>/dev/tcp/127.0.0.1/${k.port}`,
    `printf '${request}' >&3`,
    `exec 3>&-`,
    `echo sent > ${h.home}/sent`,
  ]
  await start(['--key', 'closes', '--role', 'builder', '--prompt', script.join('\n')], 'r6')
  // The kernel is stopped while the request is sent and its socket closed, so it looks only once no process holds it.
  process.kill(k.pid, 'SIGSTOP')
  try {
    writeFileSync(join(h.home, 'go'), '')
    await written(join(h.home, 'sent'), 'the request sent')
  } finally {
    process.kill(k.pid, 'SIGCONT')
  }
  await until(() => h.kernelLog().includes('closed its connection before it could be known'), 'the refusal logged')
  const show = JSON.parse(await h.ok(['lane', 'show', v, '--json']))
  assert.is(show.lanes.find((l: { id: string }) => l.id === v).activity, 'working', 'the sibling still works')
  await h.ok(['lane', 'stop', v])
})

test('an orchestrator tells and stops its own builder; its tell with SERVICE_CONVERSATION unset is from it', async () => {
  const script = [
    `X=$(svc lane start --run r2 --key x --role builder --prompt 'sleep 60' | sed -n 's/.*conv \\([0-9]*\\) .*/\\1/p')`,
    `echo $X > ${h.home}/x-id`,
    step(11, `(unset SERVICE_CONVERSATION; svc tell $X 'from the orchestrator')`),
    step(12, `svc lane stop $X`),
  ]
  const [o] = idOf(
    await h.ok(
      ['lane', 'start', '--run', 'r2', '--key', 'o', '--role', 'orchestrator', '--prompt', script.join('\n')],
      {
        env: s.env,
      },
    ),
  )
  await written(join(h.home, 'c12'), 'the orchestrator script to end')
  assert.equal([read('c11').trim(), read('e11')], ['0', ''], 'tell')
  assert.equal([read('c12').trim(), read('e12')], ['0', ''], 'stop')
  const x = read('x-id').trim()
  const xName = JSON.parse(await h.ok(['lane', 'show', x, '--json'])).lanes.find((l: { id: string }) => l.id === x).name
  assert.equal(
    inbox(xName).map((m: { from: unknown; text: string }) => [m.from, m.text]),
    [[o, 'from the orchestrator']],
  )
  recordFigure(
    'answer and stop authority: the launcher chain and the person may tell, answer, stop and reap a lane; a sibling ' +
      'may not',
    'an orchestrator told and stopped its builder; a sibling refused all four; a tell with SERVICE_CONVERSATION ' +
      'unset recorded as from its lane',
  )
})

test('an orchestrator cannot --replace the builder of another orchestrator of its run; the person can', async () => {
  const [o1] = idOf(
    await start(
      [
        ...['--key', 'o1', '--role', 'orchestrator', '--prompt'],
        `svc lane start --key x --role builder --prompt 'sleep 60' > ${h.home}/x-line\nsleep 60`,
      ],
      'r3',
    ),
  )
  await written(join(h.home, 'x-line'), 'the first orchestrator to start its builder')
  const [x, xName] = idOf(read('x-line'))
  const [o2] = idOf(
    await start(
      [
        ...['--key', 'o2', '--role', 'orchestrator', '--prompt'],
        step(21, `svc lane start --key x --role builder --replace --prompt 'echo hijacked'`),
      ],
      'r3',
    ),
  )
  await written(join(h.home, 'c21'), 'the second orchestrator to try')
  assert.equal(
    [read('c21').trim(), read('e21')],
    [
      '1',
      `svc: refused: svc lane start --replace: conv ${o2} is not in the launcher chain of conv ${x}\n` +
        `hint: only the person or the conversations that launched conv ${x} may do this\n`,
    ],
  )
  const lanes = JSON.parse(await h.ok(['lane', 'list', '--run', 'r3', '--json']))
  assert.equal(
    lanes
      .filter((l: { key: string }) => l.key === 'x')
      .map((l: { id: string; activity: string; parent: string }) => [l.id, l.activity, l.parent]),
    [[x, 'working', o1]],
    'the builder kept working, replaced by nothing',
  )
  assert.ok(xName)
  const replaced = await h.svc(
    ['lane', 'start', '--run', 'r3', '--key', 'x', '--role', 'builder', '--replace', '--prompt', 'true', '--no-wait'],
    { env: s.env },
  )
  assert.is(replaced.code, 0, replaced.stderr)
  await h.ok(['lane', 'stop', o1])
})

test.run()
