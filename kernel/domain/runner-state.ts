import type { NeedsYouReason, Phase } from './keys.js'

/** What a runner publishes in state.json (it alone writes that file). */
export interface RunnerState {
  runner: { pid: number; start: string }
  /** The process whose life means "the harness is alive". */
  harness?: { pid: number; start: string; at: number }
  phase?: { value: Phase; reason?: NeedsYouReason; source: string; at: number; detail?: string }
  model?: string
  /** `basis` says what an estimate was computed from. */
  cost?: { usd: number; estimated: boolean; basis?: string }
  spawnError?: { at: number; message: string }
  ended?: { at: number; exitCode: number | null; signal: string | null; source: string }
  /** A request the harness is waiting on (needs-you), kept so it can be answered. */
  pending?: { id: string; kind: NeedsYouReason; tool?: string; input?: unknown; at: number }
  session?: string
  /** Messages held while a turn runs; they go to the harness together when it ends. */
  queued?: string[]
  /** Turns the harness finished (a `result`, a `turn.completed`). */
  turns?: number
  /** The last error the harness reported (a failed turn, an exit), kept for the evidence. */
  lastError?: { at: number; message: string }
  /** Tokens used so far, for harnesses that report no price (the cost is then an estimate from these). */
  usage?: { input: number; cachedInput: number; output: number }
  /** The harness has been retrying since `since`, with no progress (its last retry text in `message`). */
  retrying?: { since: number; message: string }
  /** The runner interrupted a retry loop that went on too long; the turn's end shows this as its error. */
  gaveUp?: { at: number; message: string }
}

/** What `svc conv mark` publishes (mark.json, written by the kernel). */
export interface MarkState {
  value: Phase
  reason?: NeedsYouReason
  source: string
  at: number
}

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
}
