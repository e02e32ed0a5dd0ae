import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { createSampleProject, writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { remotePort } from '../../kernel/port-client.js'
import type { KernelPort } from '../../kernel/port.js'
import { TestHome, alive, git, until } from '../helpers/home.js'
import { recordFigure } from './figures.js'

/** What a client was told succeeded: each must be found after any crash. */
type Ack = { kind: 'conv' | 'lane' | 'worker'; id: string } | { kind: 'report'; id: string; name: string; seq: number } | { kind: 'reap'; id: string }

const roles = Object.fromEntries(['builder', 'play', 'orchestrator'].map((r) => [r, { model: 'm', harness: 'none' as const }]))

async function connect(h: TestHome, env: Record<string, string> = {}): Promise<{ port: KernelPort; pid: number }> {
  const k = (await ensureKernel({ ...processIo(), env: h.env(env) }))!
  return { port: remotePort(httpTransport(k)), pid: k.pid }
}

/** The scripted sequence: launches, reports and reaps. Stops at the first failure (the kernel died). */
async function sequence(port: KernelPort, acks: Ack[]): Promise<void> {
  const root = await port.convNew({ harness: 'none', project: 'sample' })
  acks.push({ kind: 'conv', id: root.id })
  const lanes: { id: string; name: string }[] = []
  for (const [key, role] of [['p1', 'play'], ['b1', 'builder'], ['p2', 'play']] as const) {
    const r = await port.laneStart({ conversation: root.id, run: 'crash', key, role, prompt: 'x', noWait: true })
    acks.push({ kind: 'lane', id: r.lane.id })
    lanes.push({ id: r.lane.id, name: r.lane.name })
  }
  for (const l of lanes) {
    const r = await port.laneReport({ conversation: l.id, body: `BLOCKED report of ${l.name}`, status: 'blocked' })
    acks.push({ kind: 'report', id: l.id, name: l.name, seq: r.report.seq })
  }
  for (const l of lanes) {
    await port.laneReap({ lane: l.id })
    acks.push({ kind: 'reap', id: l.id })
  }
  // A worker: its run, a report (told to its starter, posted to its issue) and its reap.
  await port.issueNew({ project: 'sample', title: 'crash' })
  const w = await port.workerRun({ conversation: root.id, issue: 'local:1', prompt: 'x', harness: 'none', post: true, noWait: true })
  acks.push({ kind: 'worker', id: w.worker.id })
  const r = await port.workerReport({ conversation: w.worker.id, body: 'BLOCKED report of the worker', status: 'blocked' })
  acks.push({ kind: 'report', id: w.worker.id, name: w.worker.name, seq: r.report.seq })
  await port.workerReap({ worker: w.worker.id })
  acks.push({ kind: 'reap', id: w.worker.id })
}

async function verify(port: KernelPort, acks: Ack[]) {
  for (const a of acks) {
    const v = await port.convShow({ conv: a.id })
    assert.is(v.id, a.id, `acknowledged ${a.kind} ${a.id} is there`)
    if (a.kind === 'lane') assert.ok(v.lane, `lane facts of ${a.id}`)
    if (a.kind === 'worker') assert.is(v.worker?.issue, 'local:1', `worker facts of ${a.id}`)
    if (a.kind === 'report') {
      const w = v.worker ? await port.workerWait({ worker: a.id, after: String(a.seq - 1), timeoutMs: 0 }) : await port.laneWait({ lane: a.id, after: String(a.seq - 1), timeoutMs: 0 })
      assert.is(w.kind, 'report', `acknowledged report ${a.seq} of ${a.name}`)
      if (w.kind === 'report') assert.is(w.report.seq, a.seq)
    }
    if (a.kind === 'reap') assert.ok(v.archived, `acknowledged reap of ${a.id} left it archived`)
  }
}

/** An acknowledged worker report is posted to its issue exactly once, whatever the kill cut short. */
async function postedOnce(h: TestHome, acks: Ack[]) {
  const report = acks.find((a): a is Extract<Ack, { kind: 'report' }> => a.kind === 'report' && a.name.startsWith('w-'))
  if (!report) return
  await until(() => existsSync(join(h.service, 'agents', `conv-${report.name}`, `posted-${report.seq}.json`)), 'the worker report posted and recorded')
  assert.is(readdirSync(join(h.service, 'issues', 'sample', '1.comments')).length, 1, 'one comment on the issue')
}

/** For n = 1, 2, …: a fresh home (a copy of one template with a sample project), a kernel that kills itself at its
 * n-th fault point, and `attempt` on it, which says whether the kernel died (and checks what it must after the
 * restart); until an attempt runs through. Returns the number of kill points. */
async function atEachKillPoint(label: string, attempt: (h: TestHome, checkout: string, first: { port: KernelPort; pid: number }) => Promise<boolean>): Promise<number> {
  const template = new TestHome(`${label}-template`)
  template.extraEnv = {}
  const project = createSampleProject(join(template.home, 'src'))
  writeFileSync(join(template.home, '.gitconfig'), '[user]\n\tname = T\n\temail = t@example.com\n')
  let killedAt = 0
  try {
    for (let n = 1; n < 200; n++) {
      const h = new TestHome(label)
      try {
        cpSync(template.home, h.home, { recursive: true })
        const checkout = project.checkout.replace(template.home, h.home)
        writeProjectsYaml(h.service, { ...project, checkout }, { gauntlet: { roles } })
        const first = await connect(h, { SERVICE_TEST_BUILD: '1', SERVICE_FAULT_KILL_AT: String(n) })
        if (!(await attempt(h, checkout, first))) break
        killedAt++
      } finally {
        await h.stop()
      }
    }
  } finally {
    await template.stop()
  }
  return killedAt
}

test('the kernel killed at every store write step of a scripted sequence: after each restart the store parses and holds every acknowledged write', async () => {
  let acknowledged = 0
  const killedAt = await atEachKillPoint('crash', async (h, _checkout, first) => {
    const acks: Ack[] = []
    try {
      await sequence(first.port, acks)
    } catch {
      await until(() => !alive(first.pid), 'the killed kernel gone')
      acknowledged += acks.length
      assert.ok(existsSync(join(h.service, 'kernel.json')), 'a killed kernel leaves its manifest behind (stale)')
      const again = await connect(h)
      assert.ok(again.pid !== first.pid)
      await verify(again.port, acks)
      await postedOnce(h, acks)
      assert.not.match(readFileSync(join(h.service, 'kernel.log'), 'utf8'), 'fatal:')
      return true
    }
    // Past the last fault point: the whole sequence ran; check it once and stop.
    await verify(first.port, acks)
    await postedOnce(h, acks)
    return false
  })
  assert.ok(killedAt >= 30, `the sequence has many write steps (${killedAt})`)
  recordFigure('kernel killed at each store write step of a scripted sequence (launches, reports, reaps; a worker run, reported, posted and reaped)', `${killedAt} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost`)
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
  const laneBranches = git(checkout, 'branch', '--list', 'crash/*', '--format=%(refname:short)').split('\n').filter(Boolean)
  return [
    ...worktrees.filter((d) => !cwds.has(d)).map((d) => `worktree ${d}`),
    ...dirs.filter((d) => !cwds.has(d)).map((d) => `directory ${d}`),
    ...laneBranches.filter((b) => !branches.has(b)).map((b) => `branch ${b}`),
  ]
}

test('issue 16 item 3: the kernel killed at each step of a launch: after the restart nothing is left that no lane record claims, svc doctor finds nothing, and each launch cut short succeeds when tried again', async () => {
  const killedAt = await atEachKillPoint('crash-launch', async (h, checkout, first) => {
    let root: string | undefined
    try {
      root = (await first.port.convNew({ harness: 'none', project: 'sample' })).id
      for (const [key, role] of LAUNCHES) await first.port.laneStart({ conversation: root, run: 'crash', key, role, prompt: 'x', noWait: true })
      return false
    } catch {
      // The kernel died: checked below.
    }
    await until(() => !alive(first.pid), 'the killed kernel gone')
    const again = await connect(h)
    const lanes = await again.port.laneList({})
    const where = `killed after ${lanes.length} launches`
    assert.equal(unclaimed(checkout, `${checkout}-lanes`, lanes), [], `${where}: nothing left that no lane record claims`)
    const { checks } = await again.port.doctor({})
    assert.equal(checks.filter((c) => c.name === 'interrupted launch'), [], `${where}: svc doctor finds no leftover`)
    root ??= (await again.port.convNew({ harness: 'none', project: 'sample' })).id
    for (const [key, role] of LAUNCHES) {
      if (lanes.some((l) => l.key === key)) continue
      const r = await again.port.laneStart({ conversation: root, run: 'crash', key, role, prompt: 'x', noWait: true })
      assert.ok(existsSync(r.lane.cwd), `${where}: ${key} launched again`)
    }
    assert.equal(unclaimed(checkout, `${checkout}-lanes`, await again.port.laneList({})), [], `${where}: after the launches again`)
    return true
  })
  assert.ok(killedAt >= 20, `three launches have many kill points (${killedAt})`)
  recordFigure('kernel killed at each step of three launches (builder, play, orchestrator)', `${killedAt} kill points, 0 worktrees, branches or directories left unclaimed, every launch cut short succeeded when tried again`)
})

test.run()
