import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { createSampleProject, writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { remotePort } from '../../kernel/port/client.js'
import type { KernelPort } from '../../kernel/port/port.js'
import type { Role } from '../../kernel/domain/keys.js'
import { TestHome, alive, git, until } from '../helpers/home.js'
import { recordFigure } from './figures.js'

/** What a client was told succeeded: each must be found after any crash. */
type Ack =
  | { kind: 'conv' | 'lane'; id: string }
  | { kind: 'worker'; id: string; issue: string }
  | { kind: 'report'; id: string; name: string; seq: number; issue?: string }
  | { kind: 'reap'; id: string }

const roles = Object.fromEntries(
  ['builder', 'play', 'orchestrator'].map((r) => [r, { model: 'm', harness: 'none' as const }]),
)

/** One home whose kernels kill themselves where the test arms them (SERVICE_FAULT_ARM, kernel/io/fault.ts). The walk
 * goes forward through a scripted sequence: each step is run armed to kill at its 1st fault point, then at its 2nd,
 * and so on, until an attempt runs through; so each fault point of each step is hit once, with every step before it
 * done, and no step is replayed from the start of the sequence. An attempt after a kill acts on what the cut one
 * would have, made afresh where the cut one may have taken effect (a new lane key; a lane, worker or issue of its
 * own). After each kill the kernel is started again and `check` runs on it. */
class Walk {
  readonly h: TestHome
  readonly checkout: string
  readonly acks: Ack[] = []
  kills = 0
  port!: KernelPort
  pid = 0
  private readonly arm: string

  constructor(
    label: string,
    private readonly check: (w: Walk) => Promise<void>,
  ) {
    this.h = new TestHome(label)
    this.arm = join(this.h.home, 'fault-arm')
    const project = createSampleProject(join(this.h.home, 'src'))
    writeFileSync(join(this.h.home, '.gitconfig'), '[user]\n\tname = T\n\temail = t@example.com\n')
    writeProjectsYaml(this.h.service, project, { gauntlet: { roles } })
    this.checkout = project.checkout
  }

  async start(): Promise<void> {
    const k = (await ensureKernel({
      ...processIo(),
      env: this.h.env({ SERVICE_TEST_BUILD: '1', SERVICE_FAULT_ARM: this.arm }),
    }))!
    this.port = remotePort(httpTransport(k))
    this.pid = k.pid
  }

  /** `act` armed at its 1st, 2nd, … fault point (`fresh`, unarmed, makes what attempt 2 on acts upon), until it runs
   * through; returns what that attempt returned. */
  async everyPoint<T>(
    label: string,
    act: (port: KernelPort, attempt: number) => Promise<T>,
    fresh?: () => Promise<void>,
  ): Promise<T> {
    for (let j = 1; ; j++) {
      if (j > 1 && fresh) await fresh()
      writeFileSync(this.arm, `${label}-${j} ${j}`)
      let failure: unknown
      try {
        const out = await act(this.port, j)
        rmSync(this.arm)
        return out
      } catch (e) {
        failure = e
        rmSync(this.arm, { force: true })
      }
      await until(() => !alive(this.pid), `the killed kernel gone (the call failed with ${failure})`)
      // Killed by the armed fault point, not by a failure of its own.
      assert.not.match(this.h.kernelLog(), 'fatal:', `no fatal line after ${label}-${j}`)
      assert.ok(existsSync(join(this.h.service, 'kernel.json')), 'a killed kernel leaves its manifest behind (stale)')
      const before = this.pid
      await this.start()
      assert.ok(this.pid !== before)
      this.kills++
      await this.check(this)
    }
  }
}

/** The scripted sequence, each step at each of its fault points: launches, reports and reaps of three lanes; an
 * issue, and a worker run on it, reported (told to its starter, posted to its issue) and reaped. */
async function sequence(w: Walk): Promise<void> {
  const { acks } = w
  const root = await w.everyPoint(
    'conv',
    async (port) => (await port.convNew({ harness: 'none', project: 'sample' })).id,
  )
  acks.push({ kind: 'conv', id: root })
  const launch = async (port: KernelPort, key: string, role: string) => {
    const r = await port.laneStart({
      conversation: root,
      run: 'crash',
      key,
      role: role as Role,
      prompt: 'x',
      noWait: true,
    })
    acks.push({ kind: 'lane', id: r.lane.id })
    return { id: r.lane.id, name: r.lane.name, key, role }
  }
  const report = async (port: KernelPort, l: { id: string; name: string }) => {
    const r = await port.laneReport({ conversation: l.id, body: `BLOCKED report of ${l.name}`, status: 'blocked' })
    acks.push({ kind: 'report', id: l.id, name: l.name, seq: r.report.seq })
  }
  const lanes: { id: string; name: string; key: string; role: string }[] = []
  for (const [key, role] of [
    ['p1', 'play'],
    ['b1', 'builder'],
    ['p2', 'play'],
  ] as const)
    lanes.push(await w.everyPoint(`start-${key}`, (port, j) => launch(port, `${key}-${j}`, role)))
  for (const l of lanes) await w.everyPoint(`report-${l.name}`, (port) => report(port, l))
  for (const l of lanes) {
    // Each attempt after the first reaps a lane of its own, launched and reported as the first was.
    let lane = l
    let spare = 0
    const fresh = async () => {
      lane = await launch(w.port, `${l.key}-s${++spare}`, l.role)
      await report(w.port, lane)
    }
    await w.everyPoint(
      `reap-${l.name}`,
      async (port) => {
        await port.laneReap({ lane: lane.id })
        acks.push({ kind: 'reap', id: lane.id })
      },
      fresh,
    )
  }
  // The worker's steps: each attempt after the first on an issue and a worker of its own.
  const issue = (port: KernelPort) => port.issueNew({ project: 'sample', title: 'crash' })
  let ref = (await w.everyPoint('issue', issue)).ref
  const run = async (port: KernelPort) => {
    const r = await port.workerRun({
      conversation: root,
      issue: ref,
      prompt: 'x',
      harness: 'none',
      post: true,
      noWait: true,
    })
    acks.push({ kind: 'worker', id: r.worker.id, issue: ref })
    return { id: r.worker.id, name: r.worker.name }
  }
  const workerReport = async (port: KernelPort, wk: { id: string; name: string }) => {
    const r = await port.workerReport({ conversation: wk.id, body: 'BLOCKED report of the worker', status: 'blocked' })
    acks.push({ kind: 'report', id: wk.id, name: wk.name, seq: r.report.seq, issue: ref })
  }
  const newIssue = async () => void (ref = (await issue(w.port)).ref)
  let worker = await w.everyPoint('worker-run', run, newIssue)
  const newWorker = async () => {
    await newIssue()
    worker = await run(w.port)
  }
  await w.everyPoint('worker-report', (port) => workerReport(port, worker), newWorker)
  await w.everyPoint(
    'worker-reap',
    async (port) => {
      await port.workerReap({ worker: worker.id })
      acks.push({ kind: 'reap', id: worker.id })
    },
    async () => {
      await newWorker()
      await workerReport(w.port, worker)
    },
  )
}

async function verify(port: KernelPort, acks: Ack[]) {
  for (const a of acks) {
    const v = await port.convShow({ conv: a.id })
    assert.is(v.id, a.id, `acknowledged ${a.kind} ${a.id} is there`)
    if (a.kind === 'lane') assert.ok(v.lane, `lane facts of ${a.id}`)
    if (a.kind === 'worker') assert.is(v.worker?.issue, a.issue, `worker facts of ${a.id}`)
    if (a.kind === 'report') {
      const w = v.worker
        ? await port.workerWait({ worker: a.id, after: String(a.seq - 1), timeoutMs: 0 })
        : await port.laneWait({ lane: a.id, after: String(a.seq - 1), timeoutMs: 0 })
      assert.is(w.kind, 'report', `acknowledged report ${a.seq} of ${a.name}`)
      if (w.kind === 'report') assert.is(w.report.seq, a.seq)
    }
    if (a.kind === 'reap') assert.ok(v.archived, `acknowledged reap of ${a.id} left it archived`)
  }
}

/** An acknowledged worker report is posted to its issue exactly once, whatever the kill cut short (each worker's
 * issue is its own). */
async function postedOnce(h: TestHome, acks: Ack[]) {
  for (const a of acks) {
    if (a.kind !== 'report' || !a.issue) continue
    await until(
      () => existsSync(join(h.service, 'agents', `conv-${a.name}`, `posted-${a.seq}.json`)),
      'the worker report posted and recorded',
    )
    assert.is(
      readdirSync(join(h.service, 'issues', 'sample', `${a.issue.split(':')[1]}.comments`)).length,
      1,
      `one comment on ${a.issue}`,
    )
  }
}

test('the kernel killed at every store write step of a scripted sequence: after each restart the store parses and holds every acknowledged write', async () => {
  let acknowledged = 0
  const w = new Walk('crash', async (w) => {
    acknowledged += w.acks.length
    await verify(w.port, w.acks)
    await postedOnce(w.h, w.acks)
  })
  try {
    await w.start()
    await sequence(w)
    // Past the last fault point: the whole sequence ran; check it once more.
    await verify(w.port, w.acks)
    await postedOnce(w.h, w.acks)
  } finally {
    await w.h.stop()
  }
  assert.ok(w.kills >= 30, `the sequence has many write steps (${w.kills})`)
  recordFigure(
    'kernel killed at each store write step of a scripted sequence (launches, reports, reaps; a worker run, reported, posted and reaped)',
    `${w.kills} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost`,
  )
})

/** The launches of the launch-kill test: a branch cut (builder), an empty directory (play), a detached worktree
 * (orchestrator). */
const LAUNCHES = [
  ['b1', 'builder'],
  ['p1', 'play'],
  ['o1', 'orchestrator'],
] as const

/** What a launch can leave in git and on disk, each of which a lane's record must claim. */
function unclaimed(checkout: string, lanesRoot: string, lanes: { cwd: string; branch?: string }[]): string[] {
  const cwds = new Set(lanes.map((l) => l.cwd))
  const branches = new Set(lanes.map((l) => l.branch).filter(Boolean))
  const worktrees = git(checkout, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ') && l !== `worktree ${checkout}`)
    .map((l) => l.slice(9))
  const dirs = existsSync(lanesRoot) ? readdirSync(lanesRoot).map((d) => join(lanesRoot, d)) : []
  const laneBranches = git(checkout, 'branch', '--list', 'crash/*', '--format=%(refname:short)')
    .split('\n')
    .filter(Boolean)
  return [
    ...worktrees.filter((d) => !cwds.has(d)).map((d) => `worktree ${d}`),
    ...dirs.filter((d) => !cwds.has(d)).map((d) => `directory ${d}`),
    ...laneBranches.filter((b) => !branches.has(b)).map((b) => `branch ${b}`),
  ]
}

test('issue 16 item 3: the kernel killed at each step of a launch: after the restart nothing is left that no lane record claims, svc doctor finds nothing, and each launch cut short succeeds when tried again', async () => {
  let root: string | undefined
  /** The launch the last kill cut short, tried again after the restart. */
  let cut: { key: string; role: string } | undefined
  const w = new Walk('crash-launch', async (w) => {
    const lanes = await w.port.laneList({})
    const where = `killed after ${lanes.length} launches`
    assert.equal(
      unclaimed(w.checkout, `${w.checkout}-lanes`, lanes),
      [],
      `${where}: nothing left that no lane record claims`,
    )
    const { checks } = await w.port.doctor({})
    assert.equal(
      checks.filter((c) => c.name === 'interrupted launch'),
      [],
      `${where}: svc doctor finds no leftover`,
    )
    root ??= (await w.port.convNew({ harness: 'none', project: 'sample' })).id
    if (cut && !lanes.some((l) => l.key === cut!.key)) {
      const r = await w.port.laneStart({
        conversation: root,
        run: 'crash',
        key: cut.key,
        role: cut.role as Role,
        prompt: 'x',
        noWait: true,
      })
      assert.ok(existsSync(r.lane.cwd), `${where}: ${cut.key} launched again`)
    }
    assert.equal(
      unclaimed(w.checkout, `${w.checkout}-lanes`, await w.port.laneList({})),
      [],
      `${where}: after the launch again`,
    )
  })
  try {
    await w.start()
    root = await w.everyPoint('conv', async (port) => (await port.convNew({ harness: 'none', project: 'sample' })).id)
    for (const [key, role] of LAUNCHES) {
      await w.everyPoint(`start-${key}`, async (port, j) => {
        cut = { key: `${key}-${j}`, role }
        await port.laneStart({ conversation: root!, run: 'crash', key: cut.key, role, prompt: 'x', noWait: true })
        cut = undefined
      })
    }
  } finally {
    await w.h.stop()
  }
  assert.ok(w.kills >= 20, `three launches have many kill points (${w.kills})`)
  recordFigure(
    'kernel killed at each step of three launches (builder, play, orchestrator)',
    `${w.kills} kill points, 0 worktrees, branches or directories left unclaimed, every launch cut short succeeded when tried again`,
  )
})

test.run()
