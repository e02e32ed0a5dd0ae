import type { LaunchSpec, RunnerState } from '../../domain/runner-state.js'

export interface TranscriptLine {
  kind: 'user' | 'assistant' | 'tool' | 'system' | 'stdout' | 'stderr' | 'error'
  text: string
}

/** How to start a harness: pure, from the launch spec. */
export interface LaunchPlan {
  command: string
  args: string[]
  /** Bytes to write to stdin once started; stdin stays open when the harness takes further messages there. */
  stdin: 'none' | 'keep-open'
  initialInput?: string
}

/** The effect of one event: state changes, transcript lines, bytes for the harness's stdin. */
export interface Reduction {
  state?: Partial<RunnerState>
  transcript?: TranscriptLine[]
  stdin?: string
}

/** A harness adapter: pure argument building and event reducing. The runner does the I/O. */
export interface HarnessAdapter {
  name: string
  buildLaunch(spec: LaunchSpec): LaunchPlan
  /** State right after the process started. */
  started(now: number): Reduction
  /** One line of the harness's stdout. */
  stdoutLine(line: string, state: RunnerState, now: number): Reduction
  /** A message sent with `tell`: how it reaches the harness. */
  deliver(text: string, state: RunnerState, now: number): Reduction & { appendToFile?: string }
}
