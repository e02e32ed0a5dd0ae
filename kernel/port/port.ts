import * as v from 'valibot'
import { HARNESSES, NEEDS_YOU_REASONS, PHASES, EFFORTS, ROLES } from '../domain/keys.js'
import { MAX_DIFF_BYTES } from '../domain/diff-limits.js'
import type { LaneView } from '../domain/lane.js'
import type {
  ConvDetailSchema,
  ConvDiffSchema,
  ConvViewSchema,
  DeckTreeSchema,
  InboxEntrySchema,
  IssueViewSchema,
  PortOutputSchemas,
  ReapResultSchema,
  ReportViewSchema,
  WaitResultSchema,
} from './outputs.js'

/** KernelPort: the whole contract between the kernel and its users (CLI, handlers). One method per verb, inputs
 * as valibot schemas; the RPC layer (handlers/rpc.ts, kernel/port/client.ts) is generated from this table. */

import { MAX_TEXT, ReportRequestSchema, key, opt, ref, text } from './fields.js'
import { WorkerSchemas } from './workers.js'
export { MAX_TEXT }
export type { LaneView }

export const PortSchemas = {
  kernelStatus: v.strictObject({}),
  kernelStop: v.strictObject({}),
  convNew: v.strictObject({
    project: opt(text(100)),
    harness: opt(v.picklist(HARNESSES)),
    model: opt(text(200)),
    effort: opt(v.picklist(EFFORTS)),
    cwd: opt(text(4096)),
    prompt: opt(text(1_000_000)),
    name: opt(text(80)),
    title: opt(text(200)),
  }),
  convList: v.strictObject({ all: opt(v.boolean()) }),
  convShow: v.strictObject({ conv: ref }),
  convStop: v.strictObject({ conv: ref }),
  convArchive: v.strictObject({ conv: ref }),
  convMark: v.strictObject({
    conversation: opt(ref),
    conversationKey: opt(key),
    phase: v.picklist(PHASES),
    reason: opt(v.picklist(NEEDS_YOU_REASONS)),
  }),
  /** Without a cursor, the last page of the transcript; with one (a byte offset a page gave), what follows it. */
  convTranscript: v.strictObject({ conv: ref, cursor: opt(v.pipe(v.number(), v.integer(), v.minValue(0))) }),
  tell: v.strictObject({
    conv: ref,
    text: text(1_000_000),
    force: opt(v.boolean()),
    conversation: opt(ref),
    conversationKey: opt(key),
  }),
  convAnswer: v.strictObject({
    conv: ref,
    decision: v.picklist(['allow', 'deny'], 'must be allow or deny'),
    message: opt(text(100_000)),
  }),
  doctor: v.strictObject({}),
  successor: v.strictObject({
    conversation: opt(ref),
    conversationKey: opt(key),
    kind: v.picklist(['handoff', 'fork']),
    harness: opt(v.picklist(HARNESSES)),
    model: opt(text(200)),
    prompt: opt(text(1_000_000)),
  }),
  convAwaitStart: v.strictObject({
    conv: ref,
    timeoutMs: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000)),
  }),
  laneStart: v.strictObject({
    key: opt(text(200)),
    for: opt(text(200)),
    role: v.picklist(ROLES, 'must be one of builder, critic, verifier, play, orchestrator'),
    brief: opt(text(MAX_TEXT)),
    prompt: opt(text(1_000_000)),
    run: opt(text(200)),
    parent: opt(ref),
    project: opt(text(100)),
    model: opt(text(200)),
    harness: opt(v.picklist(HARNESSES, 'must be one of claude, codex, shell, none')),
    effort: opt(v.picklist(EFFORTS, 'must be one of low, medium, high')),
    title: opt(text(200)),
    branch: opt(text(250)),
    from: opt(text(250)),
    at: opt(text(250)),
    reuse: opt(v.boolean()),
    replace: opt(v.boolean()),
    noWait: opt(v.boolean()),
    host: opt(text(100)),
    conversation: opt(ref),
    conversationKey: opt(key),
    cwd: opt(text(4096)),
  }),
  laneReport: ReportRequestSchema,
  workerReport: ReportRequestSchema,
  laneWait: v.strictObject({
    lane: opt(ref),
    run: opt(text(200)),
    parent: opt(ref),
    after: opt(text(300)),
    timeoutMs: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)),
  }),
  laneList: v.strictObject({ run: opt(text(200)), parent: opt(ref), key: opt(text(200)) }),
  laneShow: v.strictObject({ lane: opt(ref), run: opt(text(200)), key: opt(text(200)) }),
  laneGet: v.strictObject({ lane: ref }),
  laneStop: v.strictObject({ lane: ref }),
  laneReap: v.strictObject({ lane: ref, park: opt(v.boolean()), keep: opt(v.boolean()) }),
  changes: v.strictObject({
    after: v.pipe(v.number(), v.integer(), v.minValue(0)),
    timeoutMs: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(30_000)),
  }),
  deckTree: v.strictObject({ run: opt(text(200)), parent: opt(ref) }),
  /** A conversation's page: contract, brief, reports with their verdicts and defects, parked patches, chain. */
  convDetail: v.strictObject({ conv: ref }),
  /** A builder's change against its base: the stat, and the patch up to `maxBytes`. */
  convDiff: v.strictObject({
    conv: ref,
    maxBytes: opt(v.pipe(v.number(), v.integer(), v.minValue(1024), v.maxValue(MAX_DIFF_BYTES))),
  }),
  /** A patch a reap parked (by its file name), up to `maxBytes` of it: the deck shows what was saved. */
  convParked: v.strictObject({
    conv: ref,
    patch: v.pipe(text(300), v.regex(/^parked-[^/]+\.patch$/, 'must be the name of a parked patch file')),
    maxBytes: opt(v.pipe(v.number(), v.integer(), v.minValue(1024), v.maxValue(MAX_DIFF_BYTES))),
  }),
  /** The deck's compiled browser code. */
  deckClient: v.strictObject({}),
  deckCode: v.strictObject({}),
  deckRedeem: v.strictObject({ code: text(200) }),
  issueNew: v.strictObject({
    project: opt(text(100)),
    title: text(1000),
    body: opt(text(1_000_000)),
    cwd: opt(text(4096)),
  }),
  issueList: v.strictObject({
    project: opt(text(100)),
    state: opt(v.picklist(['open', 'closed'], 'must be open or closed')),
  }),
  issueShow: v.strictObject({ ref, project: opt(text(100)), cwd: opt(text(4096)) }),
  issueClose: v.strictObject({ ref, project: opt(text(100)), cwd: opt(text(4096)) }),
  deckSession: v.strictObject({ session: text(200) }),
  ...WorkerSchemas,
  deckRevoke: v.strictObject({}),
  hostAdd: v.strictObject({
    name: text(100),
    ssh: text(300),
    lanesRoot: opt(text(4096)),
    identity: opt(text(4096)),
    hostKey: opt(text(20_000)),
  }),
  hostList: v.strictObject({}),
  hostShow: v.strictObject({ name: text(100) }),
  hostRemove: v.strictObject({ name: text(100), forgetLanes: opt(v.boolean()) }),
} as const

export type PortMethod = keyof typeof PortSchemas
export type PortInput<M extends PortMethod> = v.InferOutput<(typeof PortSchemas)[M]>

export type ConvView = v.InferOutput<typeof ConvViewSchema>
/** An issue a worker can belong to, as `svc issue` shows it. */
export type IssueView = v.InferOutput<typeof IssueViewSchema>
export type ReapResult = v.InferOutput<typeof ReapResultSchema>
/** What one long poll of `wait` ends with. */
export type WaitResult = v.InferOutput<typeof WaitResultSchema>

export type { TranscriptEntry } from '../domain/transcript.js'
/** What the deck draws: the tree of the Command Deck and the Agents page, and a conversation's page. */
export type DeckTree = v.InferOutput<typeof DeckTreeSchema>
export type InboxEntry = v.InferOutput<typeof InboxEntrySchema>
export type ReportView = v.InferOutput<typeof ReportViewSchema>
export type ConvDetail = v.InferOutput<typeof ConvDetailSchema>
export type ConvDiff = v.InferOutput<typeof ConvDiffSchema>
export type { WorkerView } from './workers.js'
export type { HostView } from '../domain/hosts.js'

/** What each method answers: the types of the output schemas (kernel/port/outputs.ts). */
export type PortOutputs = { [M in PortMethod]: v.InferOutput<(typeof PortOutputSchemas)[M]> }
export type KernelPort = { [M in PortMethod]: (input: PortInput<M>) => Promise<PortOutputs[M]> }

/** One method of a port called by its name, typed by the name: how the RPC route serves every method alike. */
export const callPort = <M extends PortMethod>(port: KernelPort, method: M, input: PortInput<M>) => port[method](input)
