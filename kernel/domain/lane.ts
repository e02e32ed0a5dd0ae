import type { Evidence } from './activity.js'
import type { ConversationRecord, LaneFacts } from './conversation.js'
import { isJudgeRole } from './keys.js'
import { newest, newestBy } from './newest.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'
import type { Report } from './report.js'
import type { LaneView } from './lane-view.js'

// The lane type family. A lane is described by three types, one for each moment of it; every other shape of a lane
// is a Pick or an Omit of one of them, named here.
// - LaneRecord: the record written once, at launch: the conversation's record with its lane facts (LaneFacts, whose
//   schema the store checks, in conversation.ts).
// - LaneNow: the facts read now: the record with what is read at this moment (liveness, reports, the worktree head).
// - LaneView: the view shown: what the API answers, the CLI prints and the deck draws (port.ts re-exports it).

export type { LaneFacts }

/** The record written once: a conversation that is a lane, with its lane facts. */
export type LaneRecord = ConversationRecord & { lane: LaneFacts }

/** The facts read now: the record, with what is read at this moment. */
export interface LaneNow {
  rec: LaneRecord
  /** Its reports, oldest first. */
  reports: Report[]
  /** Live for the one-live-lane rule (activity.ts isLive) at this read. */
  live: boolean
  /** Current head of the worktree, when git facts were read. */
  head?: string
  /** Issue 27: the lane's host is not answering (its evidence), whether or not the lane has ended. */
  hostLost?: Evidence
}

/** The view shown: a lane as the API answers it, and the list, show and the deck print it (its schema:
 * lane-view.ts). */
export type { LaneView }

/** What pairing, verdicts and chains read of a lane now: no liveness. */
export type LaneChainNow = Omit<LaneNow, 'live'>

/** What the lane verbs print about one lane: its identity, as written once at launch. */
export type LaneRef = Pick<LaneView, 'id' | 'name' | 'run' | 'key' | 'role' | 'iteration'>

/** A lane's place in its chain, as the launch wrote it: what a notification names. */
export type LanePlace = Pick<LaneFacts, 'run' | 'key' | 'role' | 'iteration'>

/** What a show line prints. */
export type LaneShown = Pick<
  LaneView,
  'id' | 'role' | 'iteration' | 'archived' | 'activity' | 'reason' | 'noReport' | 'verdict'
>

/** What a list row's cells are made of (the CLI's list and the deck's rows alike). */
export type LaneCellsInput = Pick<
  LaneView,
  | 'id'
  | 'run'
  | 'key'
  | 'role'
  | 'iteration'
  | 'activity'
  | 'reason'
  | 'noReport'
  | 'archived'
  | 'report'
  | 'for'
  | 'verdict'
  | 'branch'
  | 'git'
  | 'model'
  | 'cost'
  | 'host'
>

/** Is this conversation a lane? */
export const isLane = (rec: ConversationRecord): rec is LaneRecord => rec.lane !== undefined

/** A lane argument must name a lane: a conversation that is none is refused, with one code wherever it is met. */
export const laneOf = (rec: ConversationRecord): Decision<{ rec: LaneRecord }> =>
  isLane(rec) ? allow({ rec }) : refuse('not_found', `conv ${rec.id} (${rec.name}) is not a lane`)

/** A lane (or a worker) holds its directory from its launch until it is reaped (or archived, which only a reap did
 * before reaps were recorded): what is at its path after that is not its own. */
export const holdsItsDirectory = (r: { archived?: unknown; reaped?: unknown }): boolean => !r.archived && !r.reaped

/** Is this lane of that run and key (one chain of SPEC.md "Pairing and chains")? */
export const inChain = (lane: Pick<LaneFacts, 'run' | 'key'>, run: string, key: string): boolean =>
  lane.run === run && lane.key === key

/** SPEC.md 4.1 show: a run and key name a chain only if some lane is of it (`lanes`: how many are). */
export const chainFound = (run: string, key: string, lanes: number): Decision =>
  lanes > 0 ? ALLOWED : refuse('not_found', `no lanes ${run}/${key}`)

/** Is this lane a critic or verifier judging builder iteration `iteration` of its run and key? */
export const judgesIteration = (lane: Pick<LaneFacts, 'role' | 'for'>, iteration: number): boolean =>
  isJudgeRole(lane.role) && lane.for?.iteration === iteration

/** The newest lane by creation time (of equal times, the later one in the list). */
export const newestLane = <T extends { rec: Pick<ConversationRecord, 'createdAt'> }>(
  lanes: readonly T[],
): T | undefined => newestBy(lanes, (l) => l.rec.createdAt)

/** Oldest first by creation time, for sort. */
export const byCreation = (
  a: { rec: Pick<ConversationRecord, 'createdAt'> },
  b: { rec: Pick<ConversationRecord, 'createdAt'> },
) => a.rec.createdAt - b.rec.createdAt

/** Has a done report been filed among these (a lane's, or those of the lanes of one builder iteration)? */
export const hasDoneReport = (reports: readonly Pick<Report, 'status'>[]): boolean =>
  reports.some((r) => r.status === 'done')

/** The newest of these reports that carries a verdict. */
export const newestVerdict = <T extends Pick<Report, 'at' | 'verdict'>>(reports: readonly T[]): T | undefined =>
  newest(reports.filter((r) => r.verdict))
