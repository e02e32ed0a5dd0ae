import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gitIn } from '../../cli/demo/sample-project.js'
import { execBrief } from '../../fixtures/model-script.js'
import { procStat } from '../../kernel/io/procs.js'
import { TestHome, processesOfHome, until, written } from '../helpers/home.js'
import { makeOtherUser, type OtherUser } from '../helpers/other-user.js'
import { setupProject } from '../helpers/project.js'
import { realHarnessHome } from '../helpers/real-harness.js'
import { assertEndsWithRunner } from './escape-kit.js'
import { recordFigure } from './figures.js'

// A kernel run by a user that is not root, as people run it: each lane's runner is init of a PID namespace of its own
// inside a user namespace of its own (where the user is itself), its harness has a /proc of that namespace and no
// capability. A lane process that leaves its group and session can neither kill its runner nor outlive it, so it can
// never call as the person; the real claude and codex do a builder's whole job in there.

const made = makeOtherUser()
const user: OtherUser | undefined = 'problem' in made ? undefined : made
const SUBREAPER = fileURLToPath(new URL('../../kernel/io/subreaper.js', import.meta.url))

/** What `svc doctor`'s lane isolation line is made from, as the user sees it. */
const probe = (): { ok: boolean; problem?: string; userNamespace?: boolean; procProblem?: string } => {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import(${JSON.stringify(SUBREAPER)})` +
        '.then(async (m) => console.log(JSON.stringify(await m.pidNamespaceProbe())))',
    ],
    { uid: user!.uid, gid: user!.gid, encoding: 'utf8', timeout: 20_000 },
  )
  return JSON.parse(r.stdout)
}
/** Whether this machine lets a user that is not root make a user namespace with a PID namespace and a /proc of its
 * own, asked of the system's own tool (not of svc's probe, which is what is tested). */
const userNamespacesOn = (u: OtherUser) =>
  spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', 'true'], {
    uid: u.uid,
    gid: u.gid,
    timeout: 10_000,
  }).status === 0
/** Why this suite's lanes can have no namespaces here, if so (said once per test: there is nothing to prove then). */
const without = (): string | undefined => {
  if (!user) return `no user that is not root here: ${'problem' in made && made.problem}`
  if (!userNamespacesOn(user)) return `user namespaces are off for users here (${JSON.stringify(probe())})`
  return undefined
}

const idOf = (line: string) => /conv (\d+) \(([^)]+)\)/.exec(line)!.slice(1, 3)
const nsOf = (pid: number, kind: 'pid' | 'user' | 'mnt') => readlinkSync(`/proc/${pid}/ns/${kind}`)
const capEff = (pid: number) => /^CapEff:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]
/** The process of this home whose environment holds `mark`, as the machine's /proc names it. */
const markedProcess = (h: TestHome, mark: string): number | undefined =>
  processesOfHome(h.service).find((p) => {
    try {
      return readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(mark)
    } catch {
      return false
    }
  })
/** A brief's line that records, in `file`, what the lane's shell sees of itself: its namespaces, its capabilities,
 * and how many processes its /proc lists. */
const seenFromLane = (file: string) =>
  '{ readlink /proc/self/ns/pid /proc/self/ns/user; grep ^CapEff /proc/self/status; ' +
  `ls /proc | grep -c '^[0-9]'; } > ${file}`
/** Checks what `seenFromLane` recorded against the kernel's (this home's) namespaces. */
function assertInside(h: TestHome, file: string) {
  const [pidNs, userNs, caps, processes] = readFileSync(file, 'utf8').trim().split('\n')
  const kernel = h.kernelFile()!.pid
  assert.is.not(pidNs, nsOf(kernel, 'pid'), "the lane is in a PID namespace of its own, not the kernel's")
  assert.is.not(userNs, nsOf(kernel, 'user'), "the lane is in a user namespace of its own, not the kernel's")
  assert.is(caps, 'CapEff:\t0000000000000000', 'the lane holds no capability')
  assert.ok(Number(processes) < 30, `its /proc is its namespace's, not the machine's (${processes} processes)`)
}

test('a kernel that is not root: svc doctor says each lane runs in a PID namespace inside a user namespace of its own', async () => {
  if (without()) return console.log(`  (${without()})`)
  assert.equal(probe(), { ok: true, userNamespace: true }, 'svc finds what the system allows')
  const h = new TestHome('not-root-doctor', { user })
  try {
    await setupProject(h)
    const r = await h.svc(['doctor'])
    assert.ok(
      r.stdout
        .split('\n')
        .includes(
          'ok       lane isolation: each lane runs in a PID namespace of its own (inside a user namespace of its ' +
            'own: ' +
            'the kernel does not run as root): none of its processes outlives its runner',
        ),
      r.stdout,
    )
    const kernelUid = /^Uid:\s*(\d+)/m.exec(readFileSync(`/proc/${h.kernelFile()!.pid}/status`, 'utf8'))![1]
    assert.is(kernelUid, String(user!.uid), 'the kernel runs as the user')
  } finally {
    await h.stop()
  }
})

test('a lane of a kernel that is not root that leaves its group and session cannot kill its runner, acts as its lane, and dies with it', async () => {
  if (without()) return console.log(`  (${without()})`)
  const h = new TestHome('not-root-escape', { user })
  try {
    const s = await setupProject(h)
    const start = (args: string[]) => h.ok(['lane', 'start', '--run', 'r1', ...args], { env: s.env })
    const read = (f: string) => readFileSync(join(h.home, f), 'utf8')
    const step = (n: number, cmd: string) =>
      `${cmd} 2> ${h.home}/e${n} && echo 0 > ${h.home}/c${n} || echo $? > ${h.home}/c${n}`
    const [v] = idOf(await start(['--key', 'victim', '--role', 'builder', '--prompt', 'sleep 60']))
    // The harness (this script) leaves its group and session (setsid -f: its parent exits, a double fork) and tries
    // to kill its runner, as its namespace names it (1) and by every runner's pid the home's state files give, then
    // calls without its variables, its output nowhere the runner reads.
    const escaped = [
      `kill -9 1 $(cat $SERVICE_HOME/agents/*/state.json | grep -o '"runner":{"pid":[0-9]*' | grep -o '[0-9]*$') ` +
        `2> ${h.home}/kill-errors`,
      step(1, `env -u SERVICE_CONVERSATION -u SERVICE_CONVERSATION_KEY svc lane stop ${v}`),
      step(2, `env -u SERVICE_CONVERSATION -u SERVICE_CONVERSATION_KEY svc conv answer ${v} allow`),
      seenFromLane(`${h.home}/seen`),
      `echo escaped > ${h.home}/escaped`,
      'LEFT_BY_LANE=escape exec sleep 60',
    ].join('; ')
    const script = [
      'exec > /dev/null',
      `setsid -f sh -c '${escaped.replace(/'/g, `'"'"'`)}' < /dev/null > /dev/null 2>&1`,
      'sleep 60',
    ]
    const [a, aName] = idOf(await start(['--key', 'kills', '--role', 'builder', '--prompt', script.join('\n')]))
    await written(join(h.home, 'escaped'), 'the calls after the runner was to be killed')
    const notInChain = (what: string) => [
      '1',
      `svc: refused: ${what}: conv ${a} is not in the launcher chain of conv ${v}\n` +
        `hint: only the person or the conversations that launched conv ${v} may do this\n`,
    ]
    assert.equal([read('c1').trim(), read('e1')], notInChain('svc lane stop'), 'stop')
    assert.equal([read('c2').trim(), read('e2')], notInChain('svc conv answer'), 'answer')
    const show = JSON.parse(await h.ok(['lane', 'show', v, '--json']))
    assert.is(show.lanes.find((l: { id: string }) => l.id === v).activity, 'working')
    assertInside(h, join(h.home, 'seen'))

    const runner = JSON.parse(readFileSync(join(h.service, 'agents', `conv-${aName}`, 'state.json'), 'utf8')).runner
    assert.ok(procStat(runner.pid)?.start === runner.start, `the runner outlived the kill (${read('kill-errors')})`)
    assert.is(capEff(runner.pid), '0000000000000000', 'the lane’s supervisor keeps no capability once its harness runs')
    const left = (await until(() => markedProcess(h, 'LEFT_BY_LANE=escape'), 'the process that left, in /proc'))!
    assert.is(capEff(left), '0000000000000000', 'it holds no capability')
    await assertEndsWithRunner(runner, left)
    await h.ok(['lane', 'stop', v])
    recordFigure(
      'a kernel that is not root: a lane process leaves its group and session, tries to kill its runner (SIGKILL), ' +
        'then stops and answers a sibling without its variables',
      "the runner survives (init of the lane's PID namespace, in a user namespace of its own); both calls refused " +
        'on one line as from the lane; the lane holds no capability; killed from outside, the runner takes the ' +
        'process with it',
    )
  } finally {
    await h.stop()
  }
})

/** Checks the harness process of conversation `name` (while it runs) against the kernel's: namespaces of its own, a
 * /proc of its own (a mount namespace of its own), no capability. */
function assertHarnessInside(h: TestHome, name: string) {
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-${name}`, 'state.json'), 'utf8'))
  const harness: number = state.harness.pid
  const kernel = h.kernelFile()!.pid
  for (const kind of ['pid', 'user', 'mnt'] as const)
    assert.is.not(nsOf(harness, kind), nsOf(kernel, kind), `the harness is in a ${kind} namespace of its own`)
  assert.is(capEff(harness), '0000000000000000', 'the harness holds no capability')
}

/** The claude and the codex builder share one home and project of the user (their lanes have keys of their own, and
 * neither stops, kills or arms the kernel), made by the first of them and stopped after the suite. */
let builders: ReturnType<typeof buildersHome> | undefined
const buildersHome = () =>
  realHarnessHome('not-root-builders', { user }).then(async (r) => ({ r, s: await setupProject(r.h) }))
test.after(async () => {
  await (await builders?.catch(() => undefined))?.r.stop()
})

/** A builder lane of `harness` whose model commits, pushes and reports with its shell tool, as the user. */
async function builderJob(harness: 'claude' | 'codex', model: string) {
  const { r, s } = await (builders ??= buildersHome())
  const { h } = r
  const lane = `r1-${harness}-builder-i1`
  const started = await h.svc(
    [
      ...[
        'lane',
        'start',
        '--run',
        'r1',
        '--key',
        harness,
        '--role',
        'builder',
        '--harness',
        harness,
        '--model',
        model,
      ],
      '--prompt',
      execBrief(
        // Within a builder's default policy for both: claude asks about nothing else.
        'git commit -qm work --allow-empty && git push -u origin HEAD && ' +
          'svc lane report --stdin <<< "built and pushed"',
      ),
    ],
    { env: s.env },
  )
  assert.is(started.code, 0, started.stderr)
  const waited = await h.svc(['lane', 'wait', `conv-${lane}`, '--timeout', '25'], { env: s.env })
  assert.is(waited.code, 0, waited.stderr + (await r.transcript(`conv-${lane}`)).join('\n'))
  assert.match(waited.stdout, 'built and pushed')
  // Read as root, in the user's repositories.
  const head = gitIn(`${s.lanesRoot}/r1-${harness}`, '-c', 'safe.directory=*', 'log', '-1', '--format=%H %s').trim()
  assert.match(head, / work$/, 'the lane committed')
  const pushed = gitIn(s.project.origin, '-c', 'safe.directory=*', 'rev-parse', `refs/heads/r1/${harness}`).trim()
  assert.is(pushed, head.split(' ')[0], 'the branch is on origin')
  assertHarnessInside(h, lane)
}

test('a claude builder of a kernel that is not root commits, pushes and reports from inside its namespaces', async () => {
  if (without()) return console.log(`  (${without()})`)
  await builderJob('claude', 'claude-sonnet-4-5')
})

test('a codex builder of a kernel that is not root commits, pushes and reports from its sandbox inside its namespaces', async () => {
  if (without()) return console.log(`  (${without()})`)
  await builderJob('codex', 'gpt-5-codex')
})

test.run()
