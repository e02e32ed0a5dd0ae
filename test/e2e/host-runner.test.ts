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
import type { GitFacts } from '../../kernel/domain/git-facts.js'
import { parseStatus, STATUS_ARGS } from '../../kernel/io/git.js'
import { homePaths } from '../../kernel/io/home.js'
import { realAdapters } from '../../kernel/io/adapters.js'
import { holdSnapshot } from '../../kernel/services/host-snapshot.js'
import { REPORT_SHELL } from '../../kernel/runner/host-runner.js'
import { execFileSync } from 'node:child_process'

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
  mkdirSync(join(dir, 'hosts'))
  await recordHostKey(homePaths(dir).knownHosts, hostKeyAlias('a'), rig.host('a').hostKey)
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
      `${(e as Error).message}\nlink: ${logs.slice(0, 10).join(' | ')}\nevents: ${JSON.stringify(events)}\nrunner: ` +
        `${runnerLog}`,
    )
  }
}

const heldFile = () => join(dir, 'held')

function link(timing: { lostAfterMs?: number; aliveIntervalS?: number } = {}): HostLink {
  // One kernel attached at a time: a link a failed test left open would take the runner from this one.
  for (const l of links) l.close()
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
const start = (l: HostLink, lane: string, script: string, dir = laneDir(lane)) =>
  l.send({ t: 'start', lane, dir, script, env: { SERVICE_HOST_RUNNER: runnerPath() } })
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
  // A start sent again (as after a reconnect) starts nothing: the runner says in its log that it was started
  // already, which it does only in place of a start.
  start(l, 'l1', 'echo again > again.txt')
  await until(() => runnerState('runner.log').includes('l1: start sent again; started already'), 'the start sent again')
  assert.equal(summary('l1'), ['started', 'report done all done', 'exited 0 waited'])
  assert.is(rig.as('a', `ls ${laneDir('l1')}`), 'out.txt\n')
  assertEachOnce()
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
  await rig.until('a', `[ "$(cat .svc-host/state/lanes/l2/ended 2>/dev/null)" = 3 ]`, 'l2 ended on the host')
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
    await rig.until('a', '[ "$(cat .svc-host/state/lanes/l5/ended 2>/dev/null)" = 0 ]', 'l5 ended on the host')
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

test("a report carries a snapshot of the whole worktree, held at home; the lane's index and files untouched", async () => {
  const l = link()
  const proj = `${rig.host('a').home}/proj`
  rig.as(
    'a',
    `git init -q -b main proj && cd proj && printf 'one\\n' > a.txt && printf 'keep\\n' > b.txt && git add . && ` +
      `git -c user.name=t -c user.email=t@t commit -qm base`,
  )
  // A tracked edit, a staged one and a new file; the report is filed from the lane's shell.
  start(
    l,
    'l6',
    `printf 'two\\n' >> a.txt\nprintf 'staged\\n' > b.txt\ngit add b.txt\nprintf 'new\\n' > new.txt\n` +
      `git status --porcelain > ../status-before\n` +
      `echo 'all of it' | bash -c '${REPORT_SHELL}' report done\n`,
    proj,
  )
  const got = (await until(() => of('l6').find((e) => e.kind === 'report'), 'the report of l6', 20_000)) as Extract<
    HostEvent,
    { kind: 'report' }
  >
  assert.ok(got.commit, JSON.stringify(got) + runnerState('runner.log'))
  const commit = got.commit!
  const onHost = (cmd: string) => rig.as('a', `cd proj && ${cmd}`)
  assert.is(onHost(`git rev-parse refs/svc/snapshots/l6/${got.id}`).trim(), commit)
  assert.is(onHost(`git rev-parse ${commit}^`), onHost('git rev-parse HEAD'))
  assert.is(onHost(`git show ${commit}:a.txt`), 'one\ntwo\n')
  assert.is(onHost(`git show ${commit}:b.txt`), 'staged\n')
  assert.is(onHost(`git show ${commit}:new.txt`), 'new\n')
  // What the lane sees of its worktree is as it left it: the staged file staged, the new file untracked.
  assert.is(onHost('git status --porcelain'), rig.as('a', 'cat status-before'))
  assert.is(onHost('git diff --cached --name-only'), 'b.txt\n')

  // Home holds it: fetched from the host over its connection onto a hidden ref of the repository here.
  const repo = join(dir, 'home.git')
  execFileSync('git', ['init', '-q', '--bare', repo])
  const a = rig.host('a')
  const ctx = { home: dir, io: realAdapters() }
  const f = { host: 'a', entry: { ssh: a.ssh, identity: a.identity }, dir: proj, repo }
  const held = await holdSnapshot(ctx, { ...f, snapshot: got })
  assert.is(held, `refs/svc/hosts/a/l6/${got.id}`)
  const home = (args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' })
  assert.is(home(['rev-parse', held]).trim(), commit)
  assert.is(home(['show', `${commit}:new.txt`]), 'new\n')
  // A commit the host does not hold under that report is refused, never taken as held.
  const forged = { ...got, id: 'other', commit: 'f'.repeat(40) }
  try {
    await holdSnapshot(ctx, { ...f, snapshot: forged })
    assert.unreachable('a snapshot the host does not hold was taken as held')
  } catch (e) {
    assert.match(
      (e as Error).message,
      /^git fetch failed in .*home\.git: fatal: couldn't find remote ref refs\/svc\/snapshots\/l6\/other/,
      (e as Error).message,
    )
  }
  l.close()
})

/** A project on host a with one commit, and a worktree of it on branch l<n> at ~/wt<n>; returns the worktree. */
function hostWorktree(n: string): string {
  rig.as(
    'a',
    `git init -q -b main proj${n} && cd proj${n} && echo base > a.txt && git add . && ` +
      `git -c user.name=t -c user.email=t@t commit -qm base && git worktree add -q ../wt${n} -b l${n}`,
  )
  return `${rig.host('a').home}/wt${n}`
}

test('a remote reap removes the worktree only once home holds every byte of it', async () => {
  const l = link()
  const wt = hostWorktree('7')
  start(l, 'l7', `echo work > work.txt\necho reported | bash -c '${REPORT_SHELL}' report done\n`, wt)
  await until(() => of('l7').some((e) => e.kind === 'exited'), 'l7 exited', 20_000)
  const got = of('l7').find((e) => e.kind === 'report') as Extract<HostEvent, { kind: 'report' }>
  const repo = join(dir, 'home7.git')
  execFileSync('git', ['init', '-q', '--bare', repo])
  const a = rig.host('a')
  const ctx = { home: dir, io: realAdapters() }
  const f = { host: 'a', entry: { ssh: a.ssh, identity: a.identity }, dir: wt, repo }
  await holdSnapshot(ctx, { ...f, snapshot: got })
  // Written after the report: home does not hold it, so the reap sends a snapshot to hold and removes nothing.
  rig.as('a', 'echo late > wt7/late.txt')
  l.send({ t: 'reap', lane: 'l7', held: got.commit })
  const snap = (await until(() => of('l7').find((e) => e.kind === 'snapshot'), 'a snapshot to hold first')) as Extract<
    HostEvent,
    { kind: 'snapshot' }
  >
  assert.is(rig.as('a', 'cat wt7/late.txt'), 'late\n')
  assert.not.ok(of('l7').some((e) => e.kind === 'reaped'))
  await holdSnapshot(ctx, { ...f, snapshot: snap })
  l.send({ t: 'reap', lane: 'l7', held: snap.commit })
  const reaped = await until(() => of('l7').find((e) => e.kind === 'reaped'), 'l7 reaped')
  assert.equal(reaped, { ...reaped, kind: 'reaped', commit: snap.commit })
  assert.is(rig.as('a', 'test -e wt7 && echo there || echo gone'), 'gone\n')
  assert.not.match(rig.as('a', 'git -C proj7 worktree list'), 'wt7')
  assert.is(rig.as('a', 'git -C proj7 for-each-ref refs/svc/'), '')
  const home = (args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' })
  assert.is(home(['show', `${snap.commit}:late.txt`]), 'late\n')
  assert.is(home(['show', `${snap.commit}:work.txt`]), 'work\n')
  // A reap sent again (as after a reconnect) does nothing more: the runner says in its log that it was reaped
  // already, which it does only in place of a reap.
  l.send({ t: 'reap', lane: 'l7', held: snap.commit })
  await until(() => runnerState('runner.log').includes('l7: reap sent again; reaped already'), 'the reap sent again')
  assert.is(of('l7').filter((e) => e.kind === 'reaped').length, 1)
  assertEachOnce()
  l.close()
})

test('a remote reap refuses a worktree with a repository checked out inside, and removes nothing', async () => {
  const l = link()
  const wt = hostWorktree('8')
  const inner =
    `git init -q -b main inner && cd inner && echo mine > f.txt && git add . && git -c user.name=t -c ` +
    `user.email=t@t commit -qm i && echo more > g.txt && cd ..`
  start(l, 'l8', `${inner}\necho reported | bash -c '${REPORT_SHELL}' report done\n`, wt)
  await until(() => of('l8').some((e) => e.kind === 'exited'), 'l8 exited', 20_000)
  const got = of('l8').find((e) => e.kind === 'report') as Extract<HostEvent, { kind: 'report' }>
  l.send({ t: 'reap', lane: 'l8', held: got.commit })
  const refused = await until(() => of('l8').find((e) => e.kind === 'refused'), 'the reap refused')
  assert.equal(refused, {
    ...refused,
    reason:
      `reap: a patch cannot carry the files of a git repository inside the worktree: inner; move it out of ` +
      `${wt} first`,
  })
  assert.not.ok(of('l8').some((e) => e.kind === 'reaped' || e.kind === 'snapshot'))
  assert.is(rig.as('a', 'cat wt8/inner/g.txt'), 'more\n', 'the nested repository keeps its uncommitted file')
  l.close()
})

test("a lane's git facts are read on the host by the kernel's own code, and sent home each time they change", async () => {
  const l = link()
  const wt = hostWorktree('9')
  rig.as('a', 'git -C wt9 branch -q --set-upstream-to=main')
  const gate = (n: number) => `while [ ! -f ../gate9-${n} ]; do sleep 0.05; done`
  // An edit in place (the stamp of HEAD, the index and the top directory does not move), then a commit, then the end.
  start(
    l,
    'l9',
    [gate(1), 'echo more >> a.txt', gate(2), 'git -c user.name=t -c user.email=t@t commit -qam more', gate(3)].join(
      '\n',
    ),
    wt,
  )
  const facts = () => of('l9').flatMap((e) => (e.kind === 'git' ? [e.facts] : []))
  // What the kernel's reader says of the worktree, read there now.
  const there = () => parseStatus(rig.as('a', `cd wt9 && git ${STATUS_ARGS.join(' ')}`))
  const sent = (what: string, fits: (f: GitFacts) => boolean) =>
    until(() => {
      const f = facts().at(-1)
      return f && fits(f) ? f : undefined
    }, what)
  const head = rig.as('a', 'git -C wt9 rev-parse HEAD').trim()
  assert.equal(await sent('the facts at start', () => true), {
    branch: 'l9',
    head,
    upstream: 'main',
    ahead: 0,
    behind: 0,
    dirty: false,
    dirtyPaths: 0,
  })
  rig.as('a', 'touch gate9-1')
  assert.equal(await sent('the edit, seen though no stamp moved', (f) => f.dirty), { ...there(), dirty: true })
  rig.as('a', 'touch gate9-2')
  const committed = (await sent('the commit', (f) => f.head !== head && !f.dirty))!
  assert.equal(committed, there())
  assert.equal([committed.ahead, committed.dirty], [1, false])
  rig.as('a', 'touch gate9-3')
  await until(() => of('l9').some((e) => e.kind === 'exited'), 'l9 exited')
  // Sent only when they changed: no two in a row the same, and nothing new after the commit.
  const all = facts().map((f) => JSON.stringify(f))
  assert.ok(
    all.every((f, i) => i === 0 || f !== all[i - 1]),
    all.join('\n'),
  )
  assert.is(all.at(-1), JSON.stringify(committed))
  assertEachOnce()
  l.close()
})

test('pids of a lane and of the runner taken by another process: a new runner starts, the lane reads ended, and no report or stop signals that process', async () => {
  let l = link()
  await until(() => l.state === 'up', 'the link up')
  start(l, 'l10', 'sleep 300\n')
  // A lane that files its report while no runner runs.
  start(l, 'l15', `while [ ! -f go ]; do sleep 0.05; done\necho meanwhile | bash -c '${REPORT_SHELL}' report done\n`)
  await until(() => of('l10').length === 1 && of('l15').length === 1, 'l10 and l15 started')
  // The runner and the lane killed at once, as by the host's out-of-memory killer: no exit file, no end seen.
  l.close()
  const state = '~/.svc-host/state'
  const lane = `${state}/lanes/l10`
  rig.as('a', `kill -KILL -- ${runnerState('runner.pid')} -$(cat ${lane}/pid)`)
  // Both pids then taken by another process of the user, leading a group of its own.
  const stranger = rig.as('a', '(setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!)').trim()
  rig.as('a', `echo ${stranger} > ${lane}/pid && echo ${stranger} > ${state}/runner.pid`)
  // Alive, not a zombie (what a signal it died of leaves until it is reaped).
  const strangerAlive = () =>
    /^[^Z]/.test(rig.as('a', `ps -o stat= -p ${stranger} || true`).trim()) ? 'alive' : 'gone'
  try {
    // The report wakes no one: the process with the runner's pid was not started when the runner was.
    rig.as('a', `touch ${laneDir('l15')}/go`)
    await rig.until('a', '[ "$(cat .svc-host/state/lanes/l15/exit-code 2>/dev/null)" = 0 ]', 'l15 ended on the host')
    assert.is(strangerAlive(), 'alive')
    // The next attach starts a runner (that process is not one): it sees l10 ended and sends what l15 did.
    const logged = runnerState('runner.log').length
    l = link()
    await until(() => of('l10').length === 1 && of('l15').length === 2, 'the next runner took the lanes on', 20_000)
    assert.equal(summary('l10'), ['exited null gone'])
    assert.equal(summary('l15'), ['report done meanwhile', 'exited 0 exit-file'])
    assert.is.not(runnerState('runner.pid'), stranger)
    assert.not.match(runnerState('runner.log').slice(logged), 'already runs here')
    l.send({ t: 'stop', lane: 'l10' })
    // Handled in order: once l11 has started, the stop of l10 was done.
    start(l, 'l11', 'true\n')
    await until(() => of('l11').some((e) => e.kind === 'exited'), 'l11 started and ended')
    assert.is(strangerAlive(), 'alive')
  } finally {
    rig.as('a', `kill ${stranger} || true`)
  }
  assertEachOnce()
  l.close()
})

test('a --reuse start is refused while a reap works on its worktree or once it is gone; no empty one is made', async () => {
  const l = link()
  const wt = hostWorktree('12')
  // Not committed, and big: the reap's snapshot of it takes a while.
  start(l, 'l12', 'head -c 20000000 /dev/urandom > big.bin\n', wt)
  await until(() => of('l12').some((e) => e.kind === 'exited'), 'l12 exited', 20_000)
  const reuse = (lane: string) => l.send({ t: 'start', lane, dir: wt, script: 'touch ran\n', env: {}, reuse: true })
  const refusal = (lane: string) =>
    until(() => of(lane).find((e) => e.kind === 'refused'), `the start of ${lane} refused`) as Promise<
      Extract<HostEvent, { kind: 'refused' }>
    >
  l.send({ t: 'reap', lane: 'l12' })
  reuse('l13')
  assert.is((await refusal('l13')).reason, `cannot start: ${wt} is being reaped; start a new iteration instead`)
  await until(() => of('l12').some((e) => e.kind === 'snapshot'), 'the reap sent its snapshot to hold')
  // Gone, as after a reap that removed it: refused too, and nothing is made at its path.
  rig.as('a', `git -C proj12 worktree remove --force ${wt}`)
  reuse('l14')
  assert.is((await refusal('l14')).reason, `cannot start: ${wt} is gone (reaped?); start a new iteration instead`)
  assert.is(rig.as('a', `test -e ${wt} && echo there || echo gone`), 'gone\n')
  assert.equal([of('l13').length, of('l14').length], [1, 1])
  assertEachOnce()
  l.close()
})

test.run()
