import * as assert from 'uvu/assert'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { createSampleProject, writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { remotePort } from '../../kernel/port/client.js'
import type { KernelPort } from '../../kernel/port/port.js'
import type { Role } from '../../kernel/domain/keys.js'
import { TestHome, alive, until } from '../helpers/home.js'

/** What a client was told succeeded: each must be found after any crash. */
export type Ack =
  | { kind: 'conv' | 'lane'; id: string }
  | { kind: 'worker'; id: string; issue: string }
  | { kind: 'report'; id: string; name: string; seq: number; issue?: string }
  | { kind: 'reap'; id: string }

const roles = Object.fromEntries(
  ['builder', 'play', 'orchestrator'].map((r) => [r, { model: 'm', harness: 'none' as const }]),
)

/** A store write's fault points a kill at which leaves the same bytes as a kill at the next one: at `fsync-temp` the
 * temp file is written in full (what a process wrote outlives its SIGKILL), as it is at `rename`, the next point, with
 * only its fsync and close between them, which change nothing a restarted kernel reads. The walks kill at `rename`.
 * (The fsyncs are for a machine's crash, which no kill of a process shows.) */
export const SAME_AS_NEXT = ['fsync-temp']

/** One home whose kernels kill themselves where the test arms them (SERVICE_FAULT_ARM, kernel/io/fault.ts). The walk
 * goes forward through a scripted sequence: each step is run armed to kill at its 1st fault point, then at its 2nd,
 * and so on (SAME_AS_NEXT passed over), until an attempt runs through; so each fault point of each step is hit once,
 * with every step before it done, and no step is replayed from the start of the sequence. An attempt after a kill
 * acts on what the cut one would have, made afresh where the cut one may have taken effect (a new lane key; a lane,
 * worker or issue of its own). After each kill the kernel is started again and `check` runs on it. The scripted
 * sequence is cut in parts, each walked in a home of its own by a file of its own (so that they run side by side):
 * what a part starts from is made unarmed, and acknowledged as the walk's own writes are. */
export class Walk {
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
      writeFileSync(this.arm, `${label}-${j} ${j} ${SAME_AS_NEXT.join(',')}`)
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

/** A lane of the sequence, as its later steps address it. */
export interface SeqLane {
  id: string
  name: string
  key: string
  role: string
}

/** The sequence's lanes: a play lane (an empty directory) and a builder (a worktree on a branch of its own). A second
 * play lane after them walked the same fault points as the first, in the same order, once more. */
export const SEQ_LANES = [
  ['p1', 'play'],
  ['b1', 'builder'],
] as const

/** The conversation the sequence's lanes and worker are launched from. */
export const newRoot = async (port: KernelPort) => (await port.convNew({ harness: 'none', project: 'sample' })).id

export async function launchLane(w: Walk, port: KernelPort, root: string, key: string, role: string): Promise<SeqLane> {
  const r = await port.laneStart({
    conversation: root,
    run: 'crash',
    key,
    role: role as Role,
    prompt: 'x',
    noWait: true,
  })
  w.acks.push({ kind: 'lane', id: r.lane.id })
  return { id: r.lane.id, name: r.lane.name, key, role }
}

export async function reportLane(w: Walk, port: KernelPort, l: { id: string; name: string }): Promise<void> {
  const r = await port.laneReport({ conversation: l.id, body: `BLOCKED report of ${l.name}`, status: 'blocked' })
  w.acks.push({ kind: 'report', id: l.id, name: l.name, seq: r.report.seq })
}

/** Every acknowledged write is there: conversations, lane and worker facts, reports by their seq, reaps archived. */
export async function verify(port: KernelPort, acks: Ack[]) {
  // Every conversation's view in one answer (archived ones too), the view `conv show` gives: the check runs after
  // each of a hundred kills over every write acknowledged so far, and one request per write made it the walk's cost.
  const views = new Map((await port.convList({ all: true })).map((v) => [v.id, v]))
  for (const a of acks) {
    const v = views.get(a.id)
    assert.is(v?.id, a.id, `acknowledged ${a.kind} ${a.id} is there`)
    if (!v) continue
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
export async function postedOnce(h: TestHome, acks: Ack[]) {
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

/** A part of the sequence walked in a home of its own: after each restart and at the end, every acknowledged write
 * is checked; returns the walk and how many acknowledged writes the checks covered. */
export async function walkPart(label: string, part: (w: Walk) => Promise<void>) {
  let acknowledged = 0
  const w = new Walk(label, async (w) => {
    acknowledged += w.acks.length
    await verify(w.port, w.acks)
    await postedOnce(w.h, w.acks)
  })
  try {
    await w.start()
    await part(w)
    // Past the last fault point: the whole part ran; check it once more.
    await verify(w.port, w.acks)
    await postedOnce(w.h, w.acks)
  } finally {
    await w.h.stop()
  }
  return { kills: w.kills, acknowledged }
}
