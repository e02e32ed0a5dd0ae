import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { scratchDir, until as untilBare } from '../helpers/home.js'
import { SshHosts } from '../helpers/ssh-hosts.js'
import { HostLink } from '../../kernel/services/host-link.js'
import { controlDir, recordHostKey, runSsh } from '../../kernel/io/hosts/ssh.js'
import { openLineStream } from '../../kernel/io/hosts/stream.js'
import { hostRunnerFile } from '../../kernel/io/hosts/runner-file.js'
import { hostKeyAlias, remoteRunnerPath } from '../../kernel/domain/hosts.js'
import type { HostEvent } from '../../kernel/domain/host-stream.js'

/** The host runner on a real host (Debian's sshd in a network namespace): shipped over ssh, one runner supervising
 * the host's lanes, their events streamed home numbered and acknowledged; a dropped connection, a killed sshd and a
 * killed runner lose no event and apply none twice. */

let rig: SshHosts
let dir: string
let events: HostEvent[]
let logs: string[]
const links: HostLink[] = []

test.before(async () => {
  rig = await SshHosts.make(['a'])
  dir = scratchDir('host-runner')
  mkdirSync(dir, { recursive: true })
  await recordHostKey(join(dir, 'known_hosts'), hostKeyAlias('a'), rig.host('a').hostKey)
})
test.after(async () => {
  for (const l of links) l.close()
  await rig?.cleanup()
  const { rmSync } = await import('node:fs')
  rmSync(dir, { recursive: true, force: true })
})

/** until(), and on a timeout what the link logged, what arrived and what the runner logged. */
async function until<T>(fn: () => T | Promise<T>, what: string, limitMs = 15_000): Promise<T> {
  try {
    return await untilBare(fn, what, limitMs)
  } catch (e) {
    const runnerLog = rig.as('a', 'cat ~/.svc-host/state/runner.log 2>/dev/null || true')
    throw new Error(
      `${(e as Error).message}\nlink: ${logs.slice(0, 10).join(' | ')}\nevents: ${JSON.stringify(events)}\nrunner: ${runnerLog}`,
    )
  }
}

const heldFile = () => join(dir, 'held')

function link(timing: { lostAfterMs?: number; aliveIntervalS?: number } = {}): HostLink {
  events = []
  logs = []
  const a = rig.host('a')
  const l = new HostLink(
    'a',
    { ssh: a.ssh, identity: a.identity },
    { knownHosts: join(dir, 'known_hosts'), controlDir: controlDir(dir) },
    {
      runSsh,
      openLineStream,
      runnerFile: hostRunnerFile,
      readHeld: () => {
        try {
          return Number(readFileSync(heldFile(), 'utf8')) || 0
        } catch {
          return 0
        }
      },
      writeHeld: async (n) => writeFileSync(heldFile(), String(n)),
      now: Date.now,
      log: (m) => logs.push(m),
      reconnectMs: { firstMs: 100, maxMs: 400 },
      lostAfterMs: timing.lostAfterMs ?? 60_000,
      aliveIntervalS: timing.aliveIntervalS,
    },
    async (e) => {
      events.push(e)
    },
  )
  links.push(l)
  l.start()
  return l
}

const laneDir = (lane: string) => `${rig.host('a').home}/svc-lanes/${lane}`
const runnerPath = () => `${rig.host('a').home}/${remoteRunnerPath(hostRunnerFile().hash)}`
const start = (l: HostLink, lane: string, script: string) =>
  l.send({ t: 'start', lane, dir: laneDir(lane), script, env: { SERVICE_HOST_RUNNER: runnerPath() } })
const report = (status: string, text: string) =>
  `printf '%s\\n' '${text}' | node "$SERVICE_HOST_RUNNER" report "$SERVICE_HOST_OUTBOX" ${status}\n`
const of = (lane: string) => events.filter((e) => e.lane === lane)
const summary = (lane: string) =>
  of(lane).map((e) =>
    e.kind === 'report'
      ? `report ${e.status} ${e.body.trim()}`
      : e.kind === 'exited'
        ? `exited ${e.code} ${e.seen}`
        : e.kind,
  )
const runnerState = (file: string) => rig.as('a', `cat ~/.svc-host/state/${file} 2>/dev/null || true`).trim()

/** Every event applied once, in order: the seqs follow one another with no gap and no repeat. */
function assertEachOnce() {
  assert.equal(
    events.map((e) => e.seq),
    events.map((_, i) => events[0].seq + i),
    JSON.stringify(events.map((e) => [e.seq, e.lane, e.kind])),
  )
}

test('the runner is shipped over ssh and its lane events arrive home in order, acknowledged', async () => {
  const l = link()
  start(l, 'l1', `echo built > out.txt\n${report('done', 'all done')}`)
  await until(() => of('l1').some((e) => e.kind === 'exited'), 'l1 exited', 20_000)
  assert.equal(summary('l1'), ['started', 'report done all done', 'exited 0 waited'])
  assertEachOnce()
  assert.is(rig.as('a', `cat ${laneDir('l1')}/out.txt`), 'built\n')
  // The runner forgets what the kernel holds: its acked seq is the kernel's, its journal is empty.
  await until(() => runnerState('acked') === '3', 'the runner told of the ack')
  assert.is(runnerState('journal.jsonl'), '')
  assert.is(readFileSync(heldFile(), 'utf8'), '3')
  // A start sent again (as after a reconnect) starts nothing.
  start(l, 'l1', 'echo again > again.txt')
  await new Promise((r) => setTimeout(r, 500))
  assert.is(rig.as('a', `ls ${laneDir('l1')}`), 'out.txt\n')
  assert.is(events.length, 3)
  l.close()
})

test('sshd killed with every connection, then the runner killed: lanes go on, nothing lost, nothing twice', async () => {
  const l = link()
  await until(() => l.state === 'up', 'the link up')
  const wait = (lane: string) => `while [ ! -f go ]; do sleep 0.05; done\n`
  start(l, 'l2', `${wait('l2')}${report('done', 'second')}exit 3\n`)
  start(l, 'l3', `${wait('l3')}exit 0\n`)
  await until(() => of('l2').length === 1 && of('l3').length === 1, 'l2 and l3 started')

  rig.killSshd('a', { sessions: true })
  await until(() => l.state !== 'up', 'the link noticed')
  rig.as('a', `touch ${laneDir('l2')}/go`)
  await until(
    () => rig.as('a', `cat ${laneDir('l2')}/../../.svc-host/state/lanes/l2/ended 2>/dev/null || true`) === '3',
    'l2 ended on the host',
  )
  assert.equal(summary('l2'), ['started'])
  await rig.startSshd(rig.host('a'))
  await until(() => of('l2').length === 3, 'l2 events after the reconnect', 20_000)
  assert.equal(summary('l2'), ['started', 'report done second', 'exited 3 waited'])

  const runnerPid = Number(runnerState('runner.pid'))
  assert.ok(runnerPid > 0)
  process.kill(runnerPid, 'SIGKILL')
  rig.as('a', `touch ${laneDir('l3')}/go`)
  await until(() => of('l3').length === 2, 'l3 exit seen by the next runner', 20_000)
  assert.equal(summary('l3'), ['started', 'exited 0 exit-file'])
  assert.not.equal(Number(runnerState('runner.pid')), runnerPid)
  assertEachOnce()
  l.close()
})

test('a kernel that lost its count continues from what the runner says was acknowledged', async () => {
  writeFileSync(heldFile(), '0')
  const l = link()
  start(l, 'l4', report('blocked', 'BLOCKED on a ruling'))
  await until(() => of('l4').some((e) => e.kind === 'exited'), 'l4 exited', 20_000)
  assert.equal(summary('l4'), ['started', 'report blocked BLOCKED on a ruling', 'exited 0 waited'])
  assert.is(of('l4')[0].seq, 9)
  assert.match(logs.join('\n'), 'its runner says events up to 8 were acknowledged; continuing from there')
  l.close()
})

test('a frozen host and a cut link read host-lost, then recover; a report made meanwhile arrives once', async () => {
  const l = link({ lostAfterMs: 1_500, aliveIntervalS: 1 })
  await until(() => l.state === 'up', 'the link up')
  start(l, 'l5', `while [ ! -f go ]; do sleep 0.05; done\n${report('done', 'fifth')}`)
  await until(() => of('l5').length === 1, 'l5 started')

  rig.freeze('a', true)
  try {
    await until(() => l.state === 'host-lost', 'a frozen host read as lost')
  } finally {
    rig.freeze('a', false)
  }
  await until(() => l.state === 'up', 'the thawed host up again', 20_000)

  rig.link('a', false)
  try {
    await until(() => l.state === 'host-lost', 'a cut link read as lost')
    rig.as('a', `touch ${laneDir('l5')}/go`)
    await until(
      () => rig.as('a', 'cat ~/.svc-host/state/lanes/l5/ended 2>/dev/null || true') === '0',
      'l5 ended on the host',
    )
    assert.equal(summary('l5'), ['started'])
  } finally {
    rig.link('a', true)
  }
  await until(() => of('l5').length === 3, 'l5 events after the link came back', 20_000)
  assert.equal(summary('l5'), ['started', 'report done fifth', 'exited 0 waited'])
  assert.is(l.state, 'up')
  assertEachOnce()
  l.close()
})

test.run()
