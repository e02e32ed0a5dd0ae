import type { Activity, Evidence } from './domain/activity.js'
import type { NeedsYouReason } from './domain/keys.js'
import type { Report } from './domain/report.js'
import type { ConvView } from './port.js'

/** The views KernelPort answers with, beside the port itself (kernel/port.ts): lanes, workers, issues, the deck's
 * tree, a reap's result and a wait's. */

/** A worker as `svc worker list|show` and the deck show it: its conversation, its issue and its newest report. */
export interface WorkerView {
  id: string
  name: string
  parent?: string
  issue: string
  url?: string
  starter: string
  iteration: number
  cwd: string
  branch?: string
  post: boolean
  harness: string
  model?: string
  createdAt: number
  archived: boolean
  activity: Activity
  reason?: NeedsYouReason
  evidence: Evidence
  report?: { seq: number; status: string; at: number }
}

/** An issue a worker can belong to, as `svc issue` shows it. `project` and the times for local issues only. */
export interface IssueView {
  ref: string
  tracker: 'local' | 'gh'
  project?: string
  title: string
  state: 'open' | 'closed'
  url: string
  created?: string
  closed?: string
  body: string
}

/** Everything the deck draws: conversations as a tree, each row's view, and costs summed. */
export interface DeckTree {
  roots: { id: string; continues?: string; children: DeckTree['roots'] }[]
  conversations: Record<string, ConvView>
  lanes: Record<string, LaneView>
  /** Workers by id: each nests under the conversation that ran it, with its issue and newest report. */
  workers: Record<string, WorkerView>
  costPerRun: Record<string, number>
  costPerOrchestrator: Record<string, number>
  runs: string[]
}

export interface LaneView {
  id: string
  name: string
  parent?: string
  run: string
  key: string
  role: string
  iteration: number
  cwd: string
  harness: string
  model?: string
  effort?: string
  cost?: { usd: number; estimated: boolean; basis?: string }
  createdAt: number
  archived: boolean
  /** SPEC.md section 3, computed at this read; `archived` lanes read `stopped`. */
  activity: Activity
  /** For needs-you: question, permission or plan. */
  reason?: NeedsYouReason
  /** Where the activity came from, and when. */
  evidence: Evidence
  for?: { id: string; key: string; iteration: number; sha?: string }
  report?: { seq: number; status: string; at: number }
  verdict?: { value: string; defects: number; by: string; file?: string; judged?: string; stale: boolean }
  branch?: string
  git?: { branch?: string; head?: string; upstream?: string; ahead?: number; behind?: number; dirty: boolean; asOf: number }
}

export interface ReapResult {
  lane: LaneView
  removed: string | null
  parked?: { patch: string; ref: string; paths: number }
  warnings: string[]
  archived: boolean
  archiveError?: string
}

/** Who filed a report a wait returns: a lane (run, key, role) or a worker (its issue). */
export interface LaneRef {
  id: string
  name: string
  run?: string
  key?: string
  role: string
  iteration: number
  issue?: string
}

/** What one long poll of `wait` ends with. `cursor` is where the next wait continues (a seq for one lane, a run
 * cursor for a set). */
export type WaitResult =
  | { kind: 'report'; lane: LaneRef; report: Report; cursor: string }
  | { kind: 'pending'; cursor?: string }
  | { kind: 'exited'; detail: string; cursor?: string }
  | { kind: 'idle'; detail: string; cursor?: string }
