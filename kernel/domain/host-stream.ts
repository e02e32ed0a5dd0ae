/** The stream between the kernel and a host runner (issue 27): the runner numbers each event of its lanes and keeps
 * it in its journal until the kernel acknowledges it; after a reconnect the kernel says what it holds and the runner
 * sends what follows. These are its rules: what a line may be, whether an event is applied, what is sent again,
 * what a journal keeps, and when a silent host counts as lost. */

import * as v from 'valibot'
import { GitFactsSchema } from './git-facts.js'
import { nestedRepoRefusal, processRefusal, type ProcessInside } from './reap.js'
import { issueText, type Checked } from './shape.js'

const seq = v.pipe(v.number(), v.integer(), v.minValue(1))
const laneName = v.pipe(
  v.string(),
  v.check((s) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(s), 'a lane name of letters, digits, ".", "_" and "-"'),
)

/** What a report filed on a host carries besides its body, for SPEC.md's report rules to be checked at home: the
 * lane's `git status --porcelain=v2 --branch` at the report, and its verdict options. */
const ReportFactsSchema = v.strictObject({
  git: v.optional(v.pipe(v.string(), v.maxLength(1_000_000))),
  verdict: v.optional(v.pipe(v.string(), v.maxLength(40))),
  defects: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  verdictText: v.optional(v.pipe(v.string(), v.maxLength(1_000_000))),
  verdictPath: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  allowUnpushed: v.optional(v.boolean()),
})
export type ReportFacts = v.InferOutput<typeof ReportFactsSchema>

const commitId = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/))
const reportId = v.pipe(
  v.string(),
  v.check((s) => /^[0-9A-Za-z._-]{1,100}$/.test(s), 'a report id of letters, digits, ".", "_" and "-"'),
)

/** What a reap on the host left out (unseen-work's LeftOut): counted, sized, the largest few named. */
const LeftOutSchema = v.strictObject({
  count: v.pipe(v.number(), v.integer(), v.minValue(0)),
  bytes: v.pipe(v.number(), v.minValue(0)),
  largest: v.pipe(
    v.array(v.strictObject({ path: v.pipe(v.string(), v.maxLength(4096)), bytes: v.pipe(v.number(), v.minValue(0)) })),
    v.maxLength(20),
  ),
})

/** What happened to a lane on the host, as the runner saw it; each event numbered (`seq`) and timed. */
const head = { seq, at: v.number(), lane: laneName }
const EventSchema = v.variant('kind', [
  v.strictObject({ ...head, kind: v.literal('started'), pid: v.pipe(v.number(), v.integer()) }),
  v.strictObject({
    ...head,
    kind: v.literal('exited'),
    code: v.nullable(v.pipe(v.number(), v.integer())),
    /** How the exit is known: the runner saw it, or found the exit file (or nothing) after a restart. */
    seen: v.picklist(['waited', 'exit-file', 'gone']),
  }),
  v.strictObject({
    ...head,
    kind: v.literal('report'),
    /** The name the lane filed it under: the same report sent twice (a runner ended between sending and
     * forgetting it) has the same id, and is stored once. */
    id: reportId,
    status: v.picklist(['done', 'blocked', 'failed']),
    body: v.pipe(v.string(), v.maxLength(1_000_000)),
    facts: v.optional(ReportFactsSchema),
    /** The commit on the lane's hidden ref that holds its worktree as it was at the report. */
    commit: v.optional(commitId),
  }),
  /** A reap found the worktree not as the kernel holds it: this snapshot (on the lane's hidden ref under `id`) is
   * what must be held at home before the worktree may go. */
  v.strictObject({ ...head, kind: v.literal('snapshot'), id: reportId, commit: commitId }),
  /** The worktree was removed; every byte of it is in `commit`, which the kernel holds, but what the branch's own
   * ignore rules hid there (`leftOut`, read just before the removal), which went with it, as a reap here. */
  v.strictObject({ ...head, kind: v.literal('reaped'), commit: commitId, leftOut: v.optional(LeftOutSchema) }),
  v.strictObject({ ...head, kind: v.literal('refused'), reason: v.pipe(v.string(), v.maxLength(2000)) }),
  /** The lane's worktree as git says it is now (branch, head, upstream distance, dirtiness), read there by the code
   * that reads a worktree here; sent when it says something new. */
  v.strictObject({ ...head, kind: v.literal('git'), facts: GitFactsSchema }),
])
export type HostEvent = v.InferOutput<typeof EventSchema>
/** An event before the runner numbers it. */
export type HostEventBody = HostEvent extends infer E
  ? E extends HostEvent
    ? Omit<E, 'seq' | 'at' | 'lane'>
    : never
  : never

const FromRunner = v.variant('t', [
  v.strictObject({
    t: v.literal('hello'),
    version: v.string(),
    /** The version of the file it runs (`runnerVersion`); a runner from before it was sent has none. */
    runner: v.optional(v.string()),
    pid: v.number(),
    /** The last seq it gave, and the last the kernel acknowledged (its journal holds what lies between). */
    last: v.number(),
    acked: v.number(),
  }),
  v.strictObject({ t: v.literal('event'), event: EventSchema }),
  /** Sent every few seconds while attached: a host that sends nothing for longer is not answering. */
  v.strictObject({ t: v.literal('beat'), last: v.number() }),
])
export type FromRunner = v.InferOutput<typeof FromRunner>

const FromKernel = v.variant('t', [
  v.strictObject({
    t: v.literal('resume'),
    after: v.pipe(v.number(), v.integer(), v.minValue(0)),
    /** How often the kernel wants to hear from the runner while nothing happens. */
    beatMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(50), v.maxValue(60_000))),
  }),
  v.strictObject({ t: v.literal('ack'), seq }),
  v.strictObject({
    t: v.literal('start'),
    lane: laneName,
    dir: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)),
    script: v.pipe(v.string(), v.maxLength(1_000_000)),
    env: v.record(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), v.string()),
    /** A `--reuse`: it runs in the worktree an earlier lane left, which must still be there and not being reaped. */
    reuse: v.optional(v.literal(true)),
  }),
  v.strictObject({ t: v.literal('stop'), lane: laneName }),
  /** Remove the lane's worktree if it is exactly `held` (a snapshot the kernel holds at home); else the runner sends
   * a new snapshot to hold first. */
  v.strictObject({ t: v.literal('reap'), lane: laneName, held: v.optional(commitId) }),
])
export type FromKernel = v.InferOutput<typeof FromKernel>

const parseWith =
  <S extends v.GenericSchema>(schema: S, who: string) =>
  (line: string): Checked<v.InferOutput<S>> => {
    let doc: unknown
    try {
      doc = JSON.parse(line)
    } catch {
      return { ok: false, problem: `${who} sent a line that is not JSON: ${JSON.stringify(line.slice(0, 80))}` }
    }
    const r = v.safeParse(schema, doc)
    return r.success ? { ok: true, value: r.output } : { ok: false, problem: `${who} sent ${issueText(r.issues)}` }
  }

/** A line from the runner, checked; a bad one is named, never applied. */
export const parseFromRunner = parseWith(FromRunner, 'the host runner')
/** A line from the kernel, checked by the runner. */
export const parseFromKernel = parseWith(FromKernel, 'the kernel')

/** What the kernel does with an event, given the last seq it holds: apply the next one; drop one it already holds
 * (sent again after a reconnect), acknowledging again; and for a gap (an event lost on the way), apply nothing and
 * ask again from what it holds. Nothing is ever applied twice or out of order. */
export type Receipt = { apply: true; ack: number } | { apply: false; ack: number; resumeAfter?: number }

export function receive(held: number, eventSeq: number): Receipt {
  if (eventSeq <= held) return { apply: false, ack: held }
  if (eventSeq === held + 1) return { apply: true, ack: eventSeq }
  return { apply: false, ack: held, resumeAfter: held }
}

/** Where the kernel continues when a runner greets it: from what it holds, or, when the runner says a kernel of
 * this home already acknowledged more (the kernel's own count was lost), from there: those events were applied. */
export const heldAfterHello = (held: number, runnerAcked: number) => Math.max(held, runnerAcked)

/** What the runner sends after the kernel says it holds `after`: every journaled event past it, in order. */
export const toResend = <E extends { seq: number }>(journal: readonly E[], after: number): E[] =>
  journal.filter((e) => e.seq > after).sort((a, b) => a.seq - b.seq)

/** What the runner's journal keeps once the kernel holds `acked`: only what the kernel has not acknowledged. */
export const journalAfterAck = <E extends { seq: number }>(journal: readonly E[], acked: number): E[] =>
  journal.filter((e) => e.seq > acked)

/** The next seq the runner gives: one past the highest it ever gave (the journal, else what the kernel acked). */
export const nextSeq = (journal: readonly { seq: number }[], acked: number) =>
  Math.max(acked, ...journal.map((e) => e.seq)) + 1

/** Where a lane's snapshot is kept on its host: a hidden ref per lane and snapshot (a report's id), never a branch
 * the user sees, keeping its objects from gc until the lane is reaped. */
export const snapshotRef = (lane: string, id: string) => `refs/svc/snapshots/${lane}/${id}`
/** Where the kernel holds it at home, in the project's repository. */
export const heldSnapshotRef = (host: string, lane: string, id: string) => `refs/svc/hosts/${host}/${lane}/${id}`

/** What a reap on the host does, from facts the runner gathers: the lane must have ended; its worktree goes only
 * when a fresh snapshot of it has the tree and the HEAD of the snapshot the kernel holds (nothing in it is newer than
 * what is home); otherwise that fresh snapshot is sent home first. */
export type RemoteReap = { do: 'remove' } | { do: 'hold'; snapshot: string } | { do: 'refuse'; reason: string }

export function planRemoteReap(f: {
  alive: boolean
  gitWorktree: boolean
  /** SPEC.md 4.1 reap step 3 on the host: processes with their working directory (or files open) inside the
   * worktree `dir`, read once the lane has ended. */
  dir?: string
  processes?: ProcessInside[]
  /** The fresh snapshot, and the held commit as the host knows it (absent when the host does not hold it). */
  now?: { commit: string; tree: string; parent: string }
  /** Repositories checked out inside the worktree (a submodule, a nested clone): the snapshot records their commit,
   * never their files. */
  nested?: string[]
  held?: { tree: string; parent: string }
}): RemoteReap {
  if (f.alive) return { do: 'refuse', reason: 'the lane is still running; stop it first' }
  const busy = f.dir !== undefined && processRefusal(f.dir, f.processes ?? [])
  if (busy) return { do: 'refuse', reason: busy.replace(/^refused: /, '') }
  if (!f.gitWorktree)
    return { do: 'refuse', reason: 'the lane directory is not a git worktree: its bytes cannot be held' }
  if (!f.now) return { do: 'refuse', reason: 'no snapshot of the worktree could be made' }
  const nested = nestedRepoRefusal(f.dir ?? 'the worktree', f.nested ?? [])
  if (!nested.ok) return { do: 'refuse', reason: nested.message.replace(/^refused: /, '') }
  if (f.held && f.held.tree === f.now.tree && f.held.parent === f.now.parent) return { do: 'remove' }
  return { do: 'hold', snapshot: f.now.commit }
}

/** A host's link as the kernel sees it. */
export type LinkState = 'up' | 'reconnecting' | 'host-lost'

/** A host counts as lost once nothing has come from it for `lostAfterMs` while the link is down (or a ping went
 * unanswered): its lanes show `host-lost`, nothing is deleted, and they come back when it answers again. */
export function linkState(f: { connected: boolean; lastHeardAt: number; now: number; lostAfterMs: number }): LinkState {
  if (f.connected && f.now - f.lastHeardAt < f.lostAfterMs) return 'up'
  return f.now - f.lastHeardAt < f.lostAfterMs ? 'reconnecting' : 'host-lost'
}

/** The wait before reconnect attempt `n` (from 0): doubling from `firstMs`, at most `maxMs`. */
export const reconnectDelay = (n: number, firstMs: number, maxMs: number) => Math.min(maxMs, firstMs * 2 ** n)
