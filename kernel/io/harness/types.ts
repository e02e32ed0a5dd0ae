import type { LaunchSpec, RunnerState } from '../../domain/runner-state.js'

export interface TranscriptLine {
  kind: 'user' | 'assistant' | 'tool' | 'system' | 'stdout' | 'stderr' | 'error'
  text: string
}

/** How to start a harness process: pure, from the launch spec. */
export interface LaunchPlan {
  command: string
  args: string[]
  /** Bytes to write to stdin once started; stdin stays open when the harness takes further messages there. */
  stdin: 'none' | 'keep-open'
  initialInput?: string
  /** Variables the harness must not inherit from the runner. */
  unsetEnv?: string[]
  /** What the harness cannot honour of the launch, said once in the transcript when the process starts. */
  notes?: string[]
}

/** The effect of one event: state changes, transcript lines, bytes for the harness's stdin. */
export interface Reduction {
  state?: Partial<RunnerState>
  transcript?: TranscriptLine[]
  stdin?: string
  /** Close the harness's stdin: it has nothing more to do (a failed login). */
  closeInput?: boolean
}

/** An answer to the request a harness waits on (kernel-written answers.jsonl). */
export interface Answer {
  id: string
  decision: 'allow' | 'deny'
  message?: string
}

/** How a harness process ended. */
export interface ExitFacts {
  code: number | null
  signal: string | null
  /** The runner was asked to stop. */
  stopping: boolean
  /** The last lines the process wrote on stderr. */
  stderrTail: string[]
}

/** A harness adapter: pure argument building and event reducing. The runner does the I/O. */
export interface HarnessAdapter {
  name: string
  /** The harness's one process, whose life means "the harness is alive". */
  buildLaunch(spec: LaunchSpec): LaunchPlan
  /** State right after the process started. */
  started(now: number, spec: LaunchSpec): Reduction
  /** One line of the harness's stdout. */
  stdoutLine(line: string, state: RunnerState, now: number): Reduction
  /** A message sent with `tell`: how it reaches the harness. */
  deliver(text: string, state: RunnerState, now: number, spec: LaunchSpec): Reduction & { appendToFile?: string }
  /** An answer to the pending request; a harness without requests has none. */
  answer?(a: Answer, state: RunnerState, now: number): Reduction
  /** Bytes asking the harness to stop its turn, written before any signal. */
  interrupt?(state: RunnerState): string | undefined
  /** The harness process exited; `end` says the conversation is over (else the runner waits for messages). */
  exited(exit: ExitFacts, state: RunnerState, now: number, spec: LaunchSpec): Reduction & { end: boolean }
}
