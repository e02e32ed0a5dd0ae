import * as v from 'valibot'
import { GitFactsSchema } from './git-facts.js'
import { NEEDS_YOU_REASONS, PHASES } from './keys.js'
import type { EffectivePermissions } from './permissions.js'

const num = v.pipe(v.number(), v.finite())
const opt = v.optional
const at = { at: num }
const processId = { pid: v.pipe(v.number(), v.integer(), v.minValue(1)), start: v.string() }

/** What a runner publishes in state.json (it alone writes that file); the kernel checks every read against it. */
export const RunnerStateSchema = v.pipe(
  v.object({
    /** The lane's supervisor (the root of its process tree); none when the lane failed before it had one. */
    runner: opt(v.object(processId)),
    /** The process whose life means "the harness is alive". */
    harness: opt(v.object({ ...processId, ...at })),
    phase: opt(
      v.object({
        value: v.picklist(PHASES),
        reason: opt(v.picklist(NEEDS_YOU_REASONS)),
        source: v.string(),
        ...at,
        detail: opt(v.string()),
      }),
    ),
    model: opt(v.string()),
    cost: opt(
      v.object({ usd: num, estimated: v.boolean(), /** What an estimate was computed from. */ basis: opt(v.string()) }),
    ),
    spawnError: opt(v.object({ ...at, message: v.string() })),
    ended: opt(v.object({ ...at, exitCode: v.nullable(num), signal: v.nullable(v.string()), source: v.string() })),
    /** A request the harness is waiting on (needs-you), kept so it can be answered. */
    pending: opt(
      v.object({
        id: v.string(),
        kind: v.picklist(NEEDS_YOU_REASONS),
        tool: opt(v.string()),
        input: opt(v.unknown()),
        ...at,
      }),
    ),
    session: opt(v.string()),
    /** The harness's own id of the turn under way, to interrupt it by (codex). */
    harnessTurn: opt(v.string()),
    /** Messages held while a turn runs; they go to the harness together when it ends. */
    queued: opt(v.array(v.string())),
    /** Turns the harness finished (a `result`, a `turn.completed`). */
    turns: opt(num),
    /** The first work the harness was seen doing (a tool call, the model's output): after it, a failure is a failed
     * turn, never a failure to start. */
    worked: opt(v.object({ ...at, detail: v.string() })),
    /** The turn under way (from a message to the harness) or the last one, with when it ended. */
    turn: opt(v.object({ started: num, ended: opt(num) })),
    /** The last error the harness reported (a failed turn, an exit), kept for the evidence. */
    lastError: opt(v.object({ ...at, message: v.string() })),
    /** Tokens used so far, for harnesses that report no price (the cost is then an estimate from these). */
    usage: opt(v.object({ input: num, cachedInput: num, output: num })),
    /** The harness has been retrying since `since`, with no progress (its last retry text in `message`). */
    retrying: opt(v.object({ since: num, message: v.string() })),
    /** The runner interrupted a retry loop that went on too long; the turn's end shows this as its error. */
    gaveUp: opt(v.object({ ...at, message: v.string() })),
    /** A lane on another host (issue 27): its worktree there as its host runner last read it, and when. A lane here has
     * none: the kernel reads its worktree itself. */
    git: opt(v.object({ ...GitFactsSchema.entries, ...at })),
  }),
  // A state names the lane's runner, or the end of a lane that failed before it had one (never neither: an array
  // or an empty object is no state).
  v.check((s) => !Array.isArray(s) && (s.runner !== undefined || s.ended !== undefined), 'names no runner and no end'),
)
export type RunnerState = v.InferOutput<typeof RunnerStateSchema>

/** What `svc conv mark` publishes (mark.json, written by the kernel). */
export const MarkStateSchema = v.object({
  value: v.picklist(PHASES),
  reason: opt(v.picklist(NEEDS_YOU_REASONS)),
  source: v.string(),
  ...at,
})
export type MarkState = v.InferOutput<typeof MarkStateSchema>

/** What the kernel hands a runner (launch.json). */
export interface LaunchSpec {
  id: string
  name: string
  harness: string
  cwd: string
  model?: string
  effort?: string
  /** Variables to set for the harness, over the runner's own environment. */
  env: Record<string, string>
  /** Variables to remove (a play lane runs with no service context). */
  envDrop: string[]
  /** Prefixes of variables to remove. */
  envDropPrefixes: string[]
  /** The first user message (a lane's contract, a conversation's prompt). */
  firstMessage?: string
  /** A shell harness runs this file with bash -e. */
  script?: string
  /** Session id chosen up front by the kernel. */
  session?: string
  /** Conversation to resume (a successor continuing its source's session). */
  resume?: string
  play: boolean
  /** What the harness may do unasked, in its own mechanism (absent: the harness's own defaults). */
  permissions?: EffectivePermissions
}
