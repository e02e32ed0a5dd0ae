import * as v from 'valibot'
import { ACTIVITIES, EvidenceSchema, type Turn } from '../domain/activity.js'
import { LaneFactsSchema, WorkerFactsSchema } from '../domain/conversation.js'
import type { DoctorCheck } from '../domain/doctor.js'
import type { HostFacts, HostRemoved, HostView, RunnerFacts } from '../domain/hosts.js'
import { NEEDS_YOU_REASONS } from '../domain/keys.js'
import { ActivityFields, CostSchema, LaneViewSchema } from '../domain/lane-view.js'
import type { ReportFrom } from '../domain/list-show.js'
import { ReportSchema } from '../domain/report.js'
import { TranscriptEntrySchema, type TranscriptPage } from '../domain/transcript.js'
import type { TreeNode } from '../domain/conv-tree.js'
import type { NeedsYouAsk } from '../domain/needs-you-ask.js'
import type { RunCounts } from '../domain/run-counts.js'

/** What each verb of the port answers, as valibot schemas beside the inputs (PortSchemas); the types are inferred
 * from them. A piece the rulebook defines with its schema (a lane's view, its facts, a report, evidence) is used
 * here; a piece it defines as a type only has its schema here, held to that type below. */

const opt = v.optional

/** True when a schema's output and the rulebook's type are the same: each assignable to the other, with the same
 * keys (so a field added on one side only, even an optional one, fails the build). */
type Agrees<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false
/** Compiles only when the schema answers exactly the rulebook's type (else the build fails at the schema with
 * "Expected 2 arguments, but got 1"); typed as that type from then on. */
const sameAs =
  <T>() =>
  <S extends v.GenericSchema>(schema: S, ..._agrees: Agrees<v.InferOutput<S>, T> extends true ? [] : [never]) =>
    schema as unknown as v.GenericSchema<v.InferInput<S>, T>

/** A harness turn (activity.ts `Turn`). */
export const TurnSchema = sameAs<Turn>()(v.object({ started: v.number(), ended: opt(v.number()) }))

/** One line of `svc doctor` (doctor.ts `DoctorCheck`). */
export const DoctorCheckSchema = sameAs<DoctorCheck>()(
  v.object({ name: v.string(), ok: v.boolean(), detail: v.string(), fix: opt(v.string()), note: opt(v.boolean()) }),
)

const RunnerFactsSchema = sameAs<RunnerFacts>()(
  v.object({
    version: v.string(),
    installed: v.boolean(),
    running: opt(v.object({ pid: v.number(), version: v.string() })),
  }),
)
const HostFactsSchema = sameAs<HostFacts>()(
  v.object({
    os: v.string(),
    git: opt(v.string()),
    node: opt(v.string()),
    home: v.string(),
    runner: opt(RunnerFactsSchema),
  }),
)
/** A host as `svc host list|show` and doctor show it (hosts.ts `HostView`). */
const HostViewObject = v.object({
  name: v.string(),
  ssh: v.string(),
  lanesRoot: v.string(),
  identity: opt(v.string()),
  hostKey: opt(v.string()),
  facts: opt(HostFactsSchema),
  problem: opt(v.object({ message: v.string(), hint: opt(v.string()) })),
})
export const HostViewSchema = sameAs<HostView>()(HostViewObject)

/** What `svc host remove` answers: the host, and the lanes whose worktrees it gave up (hosts.ts `HostRemoved`). */
export const HostRemovedSchema = sameAs<HostRemoved>()(
  v.object({
    ...HostViewObject.entries,
    gaveUp: opt(v.array(v.object({ name: v.string(), live: v.boolean(), held: v.number(), refs: v.string() }))),
  }),
)

/** Who filed the report a wait returns: a lane, or a worker (list-show.ts `ReportFrom`). */
export const ReportFromSchema = sameAs<ReportFrom>()(
  v.union([
    v.pick(LaneViewSchema, ['id', 'name', 'run', 'key', 'role', 'iteration']),
    v.object({
      id: v.string(),
      name: v.string(),
      role: v.literal('worker'),
      iteration: v.number(),
      issue: v.string(),
    }),
  ]),
)

/** A page of a transcript (transcript.ts `TranscriptPage`). */
export const TranscriptPageSchema = sameAs<TranscriptPage>()(
  v.object({ entries: v.array(TranscriptEntrySchema), cursor: v.number(), more: v.boolean() }),
)

/** What a conversation waiting on a person asks (needs-you-ask.ts `NeedsYouAsk`). */
export const NeedsYouAskSchema = sameAs<NeedsYouAsk>()(
  v.variant('kind', [
    v.object({
      kind: v.literal('question'),
      tool: opt(v.string()),
      questions: v.array(
        v.object({
          question: v.string(),
          header: opt(v.string()),
          options: v.array(v.object({ label: v.string(), description: opt(v.string()) })),
        }),
      ),
    }),
    v.object({ kind: v.literal('permission'), tool: v.string(), input: v.string() }),
    v.object({ kind: v.literal('plan'), tool: opt(v.string()), plan: v.string() }),
    v.object({ kind: v.literal('mark'), reason: opt(v.string()) }),
  ]),
)

/** What the deck counts per run (run-counts.ts `RunCounts`). */
export const RunCountsSchema = sameAs<RunCounts>()(
  v.object({
    working: v.number(),
    'needs-you': v.number(),
    idle: v.number(),
    'host-lost': v.number(),
    other: v.number(),
    reported: v.number(),
    stale: v.number(),
    failed: v.number(),
  }),
)

export const KernelStatusSchema = v.object({
  pid: v.number(),
  port: v.number(),
  version: v.string(),
  home: v.string(),
  startedAt: v.number(),
  conversations: v.number(),
})

export const ConvViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  kind: v.picklist(['root', 'lane', 'worker', 'successor']),
  parent: opt(v.string()),
  successor: opt(v.picklist(['handoff', 'fork'])),
  project: opt(v.string()),
  harness: v.string(),
  model: opt(v.string()),
  effort: opt(v.string()),
  title: opt(v.string()),
  cwd: v.string(),
  createdAt: v.number(),
  archived: v.boolean(),
  /** SPEC.md section 3, computed at this read; `archived` lanes read `stopped`. */
  activity: v.picklist(ACTIVITIES),
  /** For needs-you: question, permission or plan. */
  reason: opt(v.picklist(NEEDS_YOU_REASONS)),
  /** Where the activity came from, and when. */
  evidence: EvidenceSchema,
  ended: opt(EvidenceSchema),
  cost: opt(CostSchema),
  /** The harness's turn under way or its last one (activity.ts turnEndedWithoutReport reads it). */
  turn: opt(TurnSchema),
  /** The request a needs-you harness waits on; `input` is the tool's input (a question's questions, a plan). */
  pending: opt(v.object({ kind: v.string(), tool: opt(v.string()), input: opt(v.unknown()), at: v.number() })),
  lane: opt(LaneFactsSchema),
  worker: opt(WorkerFactsSchema),
})

/** An issue a worker can belong to, as `svc issue` shows it. `project` and the times for local issues only. */
export const IssueViewSchema = v.object({
  ref: v.string(),
  tracker: v.picklist(['local', 'gh']),
  project: opt(v.string()),
  title: v.string(),
  state: v.picklist(['open', 'closed']),
  url: v.string(),
  created: opt(v.string()),
  closed: opt(v.string()),
  body: v.string(),
})

const ReapFields = {
  removed: v.nullable(v.string()),
  parked: opt(v.object({ patch: v.string(), ref: v.string(), paths: v.number() })),
  warnings: v.array(v.string()),
  archived: v.boolean(),
  archiveError: opt(v.string()),
  /** A lane on a host: the ref here that holds every byte of its worktree as it was removed there. */
  held: opt(v.string()),
}
export const ReapResultSchema = v.object({ lane: LaneViewSchema, ...ReapFields })

/** What one long poll of `wait` ends with. `cursor` is where the next wait continues (a seq for one lane, a run
 * cursor for a set). */
export const WaitResultSchema = v.variant('kind', [
  v.object({ kind: v.literal('report'), lane: ReportFromSchema, report: ReportSchema, cursor: v.string() }),
  v.object({ kind: v.literal('pending'), cursor: opt(v.string()) }),
  v.object({ kind: v.literal('exited'), detail: v.string(), cursor: opt(v.string()), next: opt(v.array(v.string())) }),
  v.object({ kind: v.literal('idle'), detail: v.string(), cursor: opt(v.string()), next: opt(v.array(v.string())) }),
])

/** A worker as `svc worker list|show` and the deck show it: its conversation, its issue and its newest report. */
export const WorkerViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  parent: opt(v.string()),
  issue: v.string(),
  url: opt(v.string()),
  starter: v.string(),
  iteration: v.number(),
  cwd: v.string(),
  branch: opt(v.string()),
  post: v.boolean(),
  harness: v.string(),
  model: opt(v.string()),
  createdAt: v.number(),
  ...ActivityFields,
  report: opt(v.object({ seq: v.number(), status: v.string(), at: v.number() })),
})

/** A conversation waiting on a person, as the deck's inbox lists it, with what it asks. */
export const InboxEntrySchema = v.object({
  id: v.string(),
  name: v.string(),
  title: opt(v.string()),
  project: opt(v.string()),
  lane: opt(v.object({ run: v.string(), key: v.string(), role: v.string(), iteration: v.number() })),
  since: v.number(),
  ask: NeedsYouAskSchema,
})

/** A conversation and those under it, as the deck nests them. */
const TreeNodeSchema: v.GenericSchema<TreeNode> = v.object({
  id: v.string(),
  continues: opt(v.string()),
  children: v.array(v.lazy(() => TreeNodeSchema)),
})

/** Everything the deck draws (the Command Deck and the Agents page): conversations as a tree, each row's view, and
 * costs summed. */
export const DeckTreeSchema = v.object({
  roots: v.array(TreeNodeSchema),
  conversations: v.record(v.string(), ConvViewSchema),
  lanes: v.record(v.string(), LaneViewSchema),
  /** Workers by id: each nests under the conversation that ran it, with its issue and newest report. */
  workers: v.record(v.string(), WorkerViewSchema),
  costPerRun: v.record(v.string(), v.number()),
  costPerOrchestrator: v.record(v.string(), v.number()),
  /** Every run, whatever the filter. */
  runs: v.array(v.string()),
  /** Per run shown: its lanes counted by activity, reported, stale and failed. */
  counts: v.record(v.string(), RunCountsSchema),
  /** Per run, per lane key: the chain of builders and critics as `svc lane show` prints it. */
  chains: v.record(v.string(), v.record(v.string(), v.string())),
  /** Every conversation waiting on a person (whatever the filter), oldest wait first, with what it asks. */
  inbox: v.array(InboxEntrySchema),
})

/** A report as a conversation's page shows it: for a verdict, the defects its verdict file lists. */
export const ReportViewSchema = v.intersect([
  ReportSchema,
  v.object({ defectList: opt(v.array(v.string())), defectProblem: opt(v.string()) }),
])

/** A conversation's page: its view, its lane's, its contract and brief, its reports and parked patches. */
export const ConvDetailSchema = v.object({
  conv: ConvViewSchema,
  lane: opt(LaneViewSchema),
  contract: opt(v.string()),
  brief: opt(v.string()),
  reports: v.array(ReportViewSchema),
  parked: v.array(v.object({ patch: v.string(), ref: v.string() })),
  chain: opt(v.string()),
  worktree: opt(v.object({ cwd: v.string(), exists: v.boolean() })),
  /** Whether the composer can send, and why not. */
  composer: v.object({ enabled: v.boolean(), reason: opt(v.string()) }),
  ask: opt(NeedsYouAskSchema),
})

/** A change against its base: `patch` holds at most the bytes asked for; `bytes` is the whole patch's size. */
export const ConvDiffSchema = v.union([
  v.object({ base: v.string(), stat: v.string(), patch: v.string(), bytes: v.number(), truncated: v.boolean() }),
  v.object({ unavailable: v.string() }),
])

const lanes = v.array(LaneViewSchema)
const convs = v.array(ConvViewSchema)

export const PortOutputSchemas = {
  kernelStatus: KernelStatusSchema,
  kernelStop: v.object({ stopping: v.literal(true) }),
  convNew: ConvViewSchema,
  convList: convs,
  convShow: ConvViewSchema,
  convStop: ConvViewSchema,
  convArchive: ConvViewSchema,
  convMark: ConvViewSchema,
  convTranscript: TranscriptPageSchema,
  tell: v.object({ delivered: v.literal(true), conv: ConvViewSchema }),
  convAnswer: v.object({
    conv: ConvViewSchema,
    answered: v.object({
      id: v.string(),
      kind: v.string(),
      tool: opt(v.string()),
      decision: v.picklist(['allow', 'deny']),
    }),
  }),
  doctor: v.object({ checks: v.array(DoctorCheckSchema), problems: v.number() }),
  successor: ConvViewSchema,
  convAwaitStart: ConvViewSchema,
  laneStart: v.object({ lane: ConvViewSchema, line: v.string() }),
  laneReport: v.object({ report: ReportSchema, lane: ConvViewSchema }),
  laneWait: WaitResultSchema,
  laneList: lanes,
  laneShow: v.object({ chain: v.string(), lanes }),
  laneGet: LaneViewSchema,
  laneStop: LaneViewSchema,
  laneReap: ReapResultSchema,
  changes: v.object({
    changes: v.array(v.object({ seq: v.number(), at: v.number(), name: v.string(), what: v.string() })),
    last: v.number(),
  }),
  deckTree: DeckTreeSchema,
  convDetail: ConvDetailSchema,
  convDiff: ConvDiffSchema,
  convParked: v.object({ patch: v.string(), text: v.string(), bytes: v.number(), truncated: v.boolean() }),
  deckClient: v.object({ js: v.string() }),
  deckCode: v.object({ code: v.string(), expiresAt: v.number() }),
  /** A deck session: the deck's cookie, accepted on the deck's routes only. */
  deckRedeem: v.object({ session: v.string(), expiresAt: v.number() }),
  deckSession: v.object({ expiresAt: v.number() }),
  deckRevoke: v.object({ revoked: v.number() }),
  issueNew: IssueViewSchema,
  issueList: v.array(IssueViewSchema),
  issueShow: IssueViewSchema,
  issueClose: v.object({ issue: IssueViewSchema, already: v.boolean() }),
  workerRun: v.object({ worker: ConvViewSchema, line: v.string() }),
  workerReport: v.object({ report: ReportSchema, worker: ConvViewSchema }),
  workerWait: WaitResultSchema,
  workerList: v.array(WorkerViewSchema),
  workerGet: WorkerViewSchema,
  workerStop: WorkerViewSchema,
  workerReap: v.object({ worker: WorkerViewSchema, ...ReapFields }),
  hostAdd: HostViewSchema,
  hostList: v.array(HostViewSchema),
  hostShow: HostViewSchema,
  hostRemove: HostRemovedSchema,
} as const
