import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, until, type Result } from '../helpers/home.js'
import { SshHosts } from '../helpers/ssh-hosts.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'

/** Faults of a host as a user meets them (issue 27), on a real host (Debian's sshd in a network namespace): with a
 * lane running there, its host runner killed, sshd killed with every connection, the host frozen (SIGSTOP) and its
 * link cut. Through each, `svc lane wait --run` (the CLI, resumed from the cursor it printed) gets each of the lane's
 * reports exactly once; while the host does not answer, the lane reads `host-lost` with its evidence in the list,
 * show and the API, is never deleted, and reads what it does again once the host is back. */

let rig: SshHosts
let h: TestHome
let s: Setup
let shared: string
let name: string
/** The cursor of the last report a wait returned. */
let cursor: string

const RUN = 'f1'
const svc = (args: string[]) => h.svc(args, { env: s.env })
const laneDir = () => `${rig.host('a').home}/svc-lanes/sample/${RUN}-k`
const onHost = (script: string) => rig.as('a', script).trim()

test.before(async () => {
  rig = await SshHosts.make(['a'])
  h = new TestHome('hosts-faults')
  // A host silent for 1.5 s is lost; the link tries again within 0.1-0.4 s.
  h.extraEnv = {
    SERVICE_TEST_BUILD: '1',
    SERVICE_TEST_HOST_LOST_MS: '1500',
    SERVICE_TEST_HOST_RECONNECT_MS: '100',
    SERVICE_TEST_HOST_RECONNECT_MAX_MS: '400',
  }
  s = await setupProject(h)
  // Origin where the host's user reaches it (the test home is private to root).
  shared = mkdtempSync('/srv/svc-test-origin-')
  chmodSync(shared, 0o755)
  const origin = join(shared, 'sample-origin.git')
  cpSync(s.project.origin, origin, { recursive: true })
  execFileSync('chmod', ['-R', 'a+rwX', origin])
  execFileSync('git', ['-C', s.project.checkout, 'remote', 'set-url', 'origin', origin])
  rig.as('a', `git config --global user.name a && git config --global user.email a@example.com`)
  rig.as('a', `git config --global safe.directory '*'`)
  writeProjectsYaml(h.service, s.project, {
    gauntlet: { host: 'a', roles: { builder: { model: 'm', harness: 'shell' } } },
  })
  const add = await h.svc(['host', 'add', 'a', '--ssh', rig.host('a').ssh, '--identity', rig.host('a').identity])
  assert.is(add.code, 0, add.stderr)
  // The lane files a blocked report each time it finds go<n> in its worktree, four in all, then ends.
  const brief = [
    'for n in 1 2 3 4; do',
    '  while [ ! -f go$n ]; do sleep 0.05; done',
    '  svc lane report --status blocked --stdin <<EOF || true',
    'BLOCKED round $n',
    'EOF',
    'done',
  ].join('\n')
  const start = await svc(['lane', 'start', '--run', RUN, '--key', 'k', '--role', 'builder', '--prompt', brief])
  assert.is(start.code, 0, start.stderr)
  name = /\((\S+)\) in /.exec(start.stdout)![1]
  await until(async () => (await laneJson()).activity === 'working', 'the lane working on host a', 30_000)
})
test.after(async () => {
  if (rig) {
    rig.link('a', true)
    rig.freeze('a', false)
  }
  await h?.stop()
  await rig?.cleanup()
  if (shared) rmSync(shared, { recursive: true, force: true })
})

/** The run's lanes as the kernel lists them (read through its port: a CLI call costs a Node start, a poll many;
 * the list's CLI is checked in showsHostLost). */
const laneViews = async () => (await h.port(s.env)).laneList({ run: RUN })
const laneJson = async () => (await laneViews()).find((v) => v.name === name)!

/** A wait on the run from the cursor, started now; `settled` says whether it has ended. */
function waitFromCursor() {
  const w = { settled: false, result: undefined as unknown as Promise<Result> }
  w.result = svc(['lane', 'wait', '--run', RUN, ...(cursor ? ['--after', cursor] : []), '--timeout', '60']).then(
    (r) => {
      w.settled = true
      return r
    },
  )
  return w
}

/** The wait got round n's report, once, and printed the next wait with its new cursor. */
async function gotRound(w: ReturnType<typeof waitFromCursor>, n: number) {
  const r = await w.result
  assert.is(r.stdout, `BLOCKED round ${n}\n`, r.stderr)
  assert.is(r.code, 4)
  assert.match(r.stderr, new RegExp(`^report #${n} blocked from ${RUN}/k builder i1 \\(conv \\d+\\)\\n`))
  const next = new RegExp(`^next: svc lane wait --run ${RUN} --after (\\S+)$`, 'm').exec(r.stderr)
  assert.ok(next, r.stderr)
  cursor = next![1]
}

/** While the host does not answer: host-lost with its evidence in the API, the list (with the evidence beside its
 * table), and show; the wait from the cursor goes on. */
async function showsHostLost(w: ReturnType<typeof waitFromCursor>) {
  const v = (await until(async () => {
    const j = await laneJson()
    return j.activity === 'host-lost' ? j : undefined
  }, 'the lane read host-lost'))!
  assert.is(v.evidence.source, 'host a')
  assert.match(v.evidence.detail ?? '', /^no answer for \d+ s/)
  const list = await svc(['lane', 'list', '--run', RUN])
  assert.is(list.code, 0)
  const [head, row] = list.stdout.split('\n').map((l) => l.split(/ {2,}/))
  assert.is(row[head.indexOf('ACTIVITY')], 'host-lost')
  assert.match(list.stderr, new RegExp(`^#\\d+ ${RUN}/k builder i1: host-lost \\(host a: no answer for \\d+ s`))
  // The deck draws its rows from its tree: the same activity and evidence.
  const tree = await (await h.port()).deckTree({ run: RUN })
  const drawn = Object.values(tree.conversations).find((c) => c.name === name)!
  assert.equal([drawn.activity, drawn.evidence.source], ['host-lost', 'host a'])
  const show = await svc(['lane', 'show', name])
  assert.match(show.stdout, /^#\d+ builder i1 host-lost/m)
  assert.not.ok(w.settled, 'the wait ended while the host was lost')
  // A reap, even with --park, is refused at once in one line: nothing stopped, parked or removed, here or there.
  const reap = await svc(['lane', 'reap', name, '--park'])
  assert.is(reap.code, 1)
  assert.match(
    reap.stderr,
    new RegExp(
      `^svc: refused: host a is not answering \\(no answer for \\d+ s[^\\n]*\\); conv \\d+ \\(${name}\\) was not ` +
        `reaped and nothing was removed, here or there\\nhint: reap again once it answers; svc host show a says ` +
        `what it answers now\\n$`,
    ),
  )
  assert.equal(parkedHere(), [])
  assert.equal([record().reaped, record().archived], [undefined, undefined])
  assert.is(onHost(`test -d ${laneDir()} && echo kept`), 'kept')
}

/** The lane's record as home's kernel stored it. */
const record = () => JSON.parse(readFileSync(join(h.service, 'agents', `conv-${name}`, 'record.json'), 'utf8'))
/** The parked patches home wrote for the lane. */
const parkedHere = () => readdirSync(join(h.service, 'agents', `conv-${name}`)).filter((f) => f.startsWith('parked-'))

test('a wait gets the report made while the host runner was killed, once; the next runner takes the lane on', async () => {
  const w = waitFromCursor()
  const runner = onHost('cat ~/.svc-host/state/runner.pid')
  onHost(`kill -KILL ${runner}`)
  onHost(`touch ${laneDir()}/go1`)
  await gotRound(w, 1)
  assert.not.equal(onHost('cat ~/.svc-host/state/runner.pid'), runner)
})

/** A fault that makes the host silent (`cut`) until `mend`: host-lost meanwhile, with round n's go given while it
 * lasts; once mended, the wait gets round n's report and the lane reads its own activity again. */
async function lostAndBack(n: number, cut: () => void, mend: () => unknown) {
  const w = waitFromCursor()
  cut()
  try {
    await showsHostLost(w)
    onHost(`touch ${laneDir()}/go${n}`)
  } finally {
    await mend()
  }
  await gotRound(w, n)
  await until(async () => (await laneJson()).activity !== 'host-lost', 'the lane read its own activity again', 30_000)
}

test('sshd killed: the lane reads host-lost with its evidence, the wait goes on, and gets the next report once sshd is back', async () => {
  await lostAndBack(
    2,
    () => rig.killSshd('a', { sessions: true }),
    () => rig.startSshd(rig.host('a')),
  )
})

test('a frozen host (SIGSTOP) reads host-lost and recovers; what the lane did after the thaw arrives once', async () => {
  // The lane is frozen too: it finds go3 only once it runs again.
  await lostAndBack(
    3,
    () => rig.freeze('a', true),
    () => rig.freeze('a', false),
  )
})

test('a cut link reads host-lost, across a restart of home too; what the lane did meanwhile arrives once it is back', async () => {
  const w = waitFromCursor()
  rig.link('a', false)
  try {
    await showsHostLost(w)
    onHost(`touch ${laneDir()}/go4`)
    // The lane filed its last report and ended on the host, with nothing of it reaching home.
    await rig.until('a', `[ "$(cat .svc-host/state/lanes/${name}/ended 2>/dev/null)" = 0 ]`, 'its end there')
    assert.is((await laneJson()).activity, 'host-lost')
    // Home's kernel stops meanwhile: the wait (the CLI, reconnecting) goes on from its cursor, and the next kernel,
    // which cannot reach the host either, reads the lane host-lost too, never stopped.
    assert.is((await h.svc(['kernel', 'stop'])).code, 0)
    await showsHostLost(w)
  } finally {
    rig.link('a', true)
  }
  await gotRound(w, 4)
  await until(async () => (await laneJson()).activity === 'stopped', 'its end applied at home', 30_000)
  // Each report stored once, in order; a wait from the last cursor has nothing more.
  assert.equal(
    h.reports(name).map((r) => r.body.trim()),
    [1, 2, 3, 4].map((n) => `BLOCKED round ${n}`),
  )
  const last = await svc(['lane', 'wait', '--run', RUN, '--after', cursor, '--timeout', '30'])
  assert.is(last.code, 2, last.stderr)
  assert.is(last.stdout, '')
  assert.is(onHost(`test -d ${laneDir()} && echo kept`), 'kept')
})

test('--reuse of a lane whose host is lost is refused in one line, nothing made; once it answers, --replace continues there', async () => {
  const start = await svc([
    'lane',
    'start',
    '--run',
    RUN,
    '--key',
    'k2',
    '--role',
    'builder',
    '--prompt',
    'while [ ! -f go ]; do sleep 0.05; done',
  ])
  assert.is(start.code, 0, start.stderr)
  const k2 = /\((\S+)\) in /.exec(start.stdout)![1]
  const k2Json = async () => (await laneViews()).find((v) => v.name === k2)!
  await until(async () => (await k2Json()).activity === 'working', 'the second lane working on host a', 30_000)
  const lanes = async () => (await laneViews()).length
  rig.freeze('a', true)
  try {
    await until(async () => (await k2Json()).activity === 'host-lost', 'the second lane read host-lost')
    const reuse = await svc([
      'lane',
      'start',
      '--run',
      RUN,
      '--key',
      'k2',
      '--role',
      'builder',
      '--reuse',
      '--prompt',
      'true',
    ])
    assert.is(reuse.code, 1, reuse.stderr)
    assert.match(
      reuse.stderr,
      new RegExp(
        `^svc: refused: the directory of conv ${(await k2Json()).id} is on host a, which is not answering \\(no ` +
          `answer for \\d+ s[^\\n]*\\); --reuse needs it\\nhint: wait until it answers \\(svc host show a\\), or ` +
          `start a new iteration\\n$`,
      ),
    )
    assert.is(await lanes(), 2, 'no lane made')
  } finally {
    rig.freeze('a', false)
  }
  await until(async () => (await k2Json()).activity === 'working', 'the second lane working again', 30_000)
  // Answering again: --reuse --replace stops it there, and the new conversation runs in its worktree on the host.
  const dir = `${laneDir()}2`
  const again = await svc([
    'lane',
    'start',
    '--run',
    RUN,
    '--key',
    'k2',
    '--role',
    'builder',
    '--reuse',
    '--replace',
    '--prompt',
    'touch went',
  ])
  assert.is(again.code, 0, again.stderr)
  assert.match(again.stdout, new RegExp(`^Lane ${RUN}/k2 builder i1: conv \\d+ \\(\\S+\\) in ${dir}\\n$`))
  assert.is((await k2Json()).activity, 'stopped')
  await rig.until('a', `test -f ${dir}/went`, 'the respawn ran in the worktree')
  assert.is(await lanes(), 3)
})

test('a reap waiting on its host ends as soon as the host reads lost, refused in one line; nothing removed', async () => {
  // A lost limit long enough that the reap is surely asked of the host before it reads as lost.
  const faults = h.extraEnv
  assert.is((await h.svc(['kernel', 'stop'])).code, 0)
  h.extraEnv = { ...faults, SERVICE_TEST_HOST_LOST_MS: '5000' }
  const answering = () => h.kernelLog().split('host a: answering').length
  const before = answering()
  try {
    const k2 = (await laneViews()).find((l) => l.key === 'k2')!
    await until(() => answering() > before, 'the next kernel attached to host a')
    const port = await h.port()
    rig.freeze('a', true)
    const asked = Date.now()
    try {
      const reap = port.laneReap({ lane: k2.name, park: true }).then(
        () => 'reaped',
        (e: Error) => e.message,
      )
      assert.match(
        await reap,
        new RegExp(
          `^refused: host a stopped answering during the reap of conv ${k2.id} \\(${k2.name}\\) \\(no answer for ` +
            `\\d+ s[^)]*\\); it is not reaped, and nothing home does not hold was removed$`,
        ),
      )
      // Within the lost limit and a look, not the reap's two minutes.
      assert.ok(Date.now() - asked < 30_000, `${Date.now() - asked} ms`)
    } finally {
      rig.freeze('a', false)
    }
    const rec = JSON.parse(readFileSync(join(h.service, 'agents', `conv-${k2.name}`, 'record.json'), 'utf8'))
    assert.equal([rec.reaped, rec.archived], [undefined, undefined])
    assert.is(onHost(`test -d ${laneDir()}2 && echo kept`), 'kept')
  } finally {
    h.extraEnv = faults
    assert.is((await h.svc(['kernel', 'stop'])).code, 0)
  }
})

/** The tree of the lane's worktree on the host now, uncommitted and untracked files included (an index of its own). */
const treeOnHost = () =>
  onHost(
    `cd ${laneDir()} && export GIT_INDEX_FILE=$(mktemp -u) && git read-tree HEAD && git add -A && git write-tree; ` +
      `rm -f "$GIT_INDEX_FILE"`,
  )
const atHome = (args: string[]) => execFileSync('git', ['-C', s.project.checkout, ...args], { encoding: 'utf8' }).trim()

test('a kernel killed in the middle of a remote reap leaves the lane whole, or reaped with every byte held at home', async () => {
  // The lane has ended; its worktree holds the go files it waited for, never committed: a reap needs --park.
  const dir = laneDir()
  const tree = treeOnHost()
  const head = onHost(`git -C ${dir} rev-parse HEAD`)
  const faults = { ...h.extraEnv }
  /** A reap --park by a kernel that kills itself (SIGKILL) at the named step; the next kernel has no such fault. */
  async function reapKilledAt(step: string) {
    assert.is((await h.svc(['kernel', 'stop'])).code, 0)
    // This kernel's link to the host is new: at the suite's short lost limit, a connection slow under load would
    // read host-lost, and a reap refuses then (what the earlier tests prove); this test is about the kill.
    h.extraEnv = { ...faults, SERVICE_FAULT_KILL_AT: step, SERVICE_TEST_HOST_LOST_MS: '20000' }
    try {
      const r = await svc(['lane', 'reap', name, '--park'])
      assert.is.not(r.code, 0, r.stdout)
      return r
    } finally {
      h.extraEnv = faults
    }
  }
  const heldRefs = () =>
    atHome(['for-each-ref', '--format=%(refname)', `refs/svc/hosts/a/${name}/`])
      .split('\n')
      .filter((r) => /\/reap-\d+$/.test(r))

  // Killed once every byte is held here, before the host is asked to remove anything: the lane is whole there.
  const killed = await reapKilledAt('host-reap-held')
  // What the reap said, should it have ended otherwise than by the kernel's death at that step.
  const said = `the reap said: ${killed.stderr.trim()}`
  assert.equal(await laneJson().then((l) => l.activity), 'stopped', said)
  assert.equal([record().reaped, record().archived], [undefined, undefined])
  assert.is(treeOnHost(), tree)
  assert.ok(heldRefs().length >= 1, `the snapshot held at home (${said})`)
  for (const ref of heldRefs()) assert.equal([atHome(['rev-parse', `${ref}^{tree}`, `${ref}^`])], [`${tree}\n${head}`])

  // Killed after the host removed the worktree, before this kernel recorded it: the next kernel asks the host what it
  // missed, and records the reap; every byte of the worktree is held here.
  await reapKilledAt('host-reaped')
  assert.is((await svc(['lane', 'list', '--run', RUN])).code, 0)
  await until(() => record().reaped !== undefined, 'the next kernel recorded the reap the host did', 30_000)
  assert.is(onHost(`test -e ${dir} && echo there || echo gone`), 'gone')
  assert.is(record().archived, undefined)
  const refs = heldRefs()
  assert.ok(refs.length >= 2, refs.join(' '))
  for (const ref of refs) assert.equal([atHome(['rev-parse', `${ref}^{tree}`, `${ref}^`])], [`${tree}\n${head}`])
  // Its go files are in the patch parked here.
  assert.ok(parkedHere().length >= 1)

  // A reap now only archives it: nothing more is asked of the host.
  const done = await svc(['lane', 'reap', name])
  assert.is(done.code, 0, done.stderr)
  assert.ok(record().archived)
})

test.run()
