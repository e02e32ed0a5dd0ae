import type { NeedsYouAsk } from '../domain/needs-you-ask.js'
import type { Report } from '../domain/report.js'
import type { RunCounts } from '../domain/run-counts.js'
import type { ConvView, LaneView, WorkerView } from './port.js'

/** What the KernelPort answers the deck with: the tree of the Command Deck and the Agents page, and a
 * conversation's page. */

/** Everything the deck draws: conversations as a tree, each row's view, and costs summed. */
export interface DeckTree {
  roots: { id: string; continues?: string; children: DeckTree['roots'] }[]
  conversations: Record<string, ConvView>
  lanes: Record<string, LaneView>
  /** Workers by id: each nests under the conversation that ran it, with its issue and newest report. */
  workers: Record<string, WorkerView>
  costPerRun: Record<string, number>
  costPerOrchestrator: Record<string, number>
  /** Every run, whatever the filter. */
  runs: string[]
  /** Per run shown: its lanes counted by activity, reported, stale and failed. */
  counts: Record<string, RunCounts>
  /** Per run, per lane key: the chain of builders and critics as `svc lane show` prints it. */
  chains: Record<string, Record<string, string>>
  /** Every conversation waiting on a person (whatever the filter), oldest wait first, with what it asks. */
  inbox: InboxEntry[]
}

export interface InboxEntry {
  id: string
  name: string
  title?: string
  project?: string
  lane?: { run: string; key: string; role: string; iteration: number }
  since: number
  ask: NeedsYouAsk
}

/** A report as a conversation's page shows it: for a verdict, the defects its verdict file lists. */
export type ReportView = Report & { defectList?: string[]; defectProblem?: string }

export interface ConvDetail {
  conv: ConvView
  lane?: LaneView
  contract?: string
  brief?: string
  reports: ReportView[]
  parked: { patch: string; ref: string }[]
  chain?: string
  worktree?: { cwd: string; exists: boolean }
  /** Whether the composer can send, and why not. */
  composer: { enabled: boolean; reason?: string }
  ask?: NeedsYouAsk
}

/** A change against its base: `patch` holds at most the bytes asked for; `bytes` is the whole patch's size. */
export type ConvDiff =
  { base: string; stat: string; patch: string; bytes: number; truncated: boolean } | { unavailable: string }
