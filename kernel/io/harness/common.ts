import { errorIdlePhase } from '../../domain/harness-signals.js'
import type { RunnerState } from '../../domain/runner-state.js'
import type { ExitFacts, Reduction, TranscriptLine } from './types.js'

/** `exited with code 1` or `was killed by SIGTERM`. */
export const exitText = (e: Pick<ExitFacts, 'code' | 'signal'>) =>
  e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`

/** The telling line of what a process wrote on stderr: its last `error:` line (argument parsers add usage and
 * hints after it), else its last line. */
export function stderrGist(tail: string[]): string | undefined {
  const lines = tail.filter((l) => l.trim())
  return lines.filter((l) => /^\s*error\b/i.test(l)).at(-1) ?? lines.at(-1)
}

/** Why a harness process ended before it ever finished a turn: its own words when it gave any. */
export function failureText(command: string, e: ExitFacts, state: RunnerState): string {
  const said = state.lastError?.message ?? stderrGist(e.stderrTail)
  return `${command} ${exitText(e)}${said ? `: ${said}` : ''}`
}

/** Messages held during a turn go to the harness as one message, in the order they were sent. */
export const joinQueued = (queued: string[]) => queued.join('\n\n')

/** A harness that takes one message at a time: while a turn runs (or waits on the user) a message is held. */
export function busy(state: RunnerState): boolean {
  return state.phase?.value === 'working' || state.phase?.value === 'needs-you'
}

export function hold(text: string, state: RunnerState): Reduction {
  return {
    state: { queued: [...(state.queued ?? []), text] },
    transcript: [
      { kind: 'user', text },
      { kind: 'system', text: 'held until the current turn ends' },
    ],
  }
}

/** One line of a JSON event stream as an object, or undefined for anything else (it is then plain output). */
export function jsonEvent(line: string): Record<string, any> | undefined {
  try {
    const v = JSON.parse(line)
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined
  } catch {
    return undefined
  }
}

/** The harness took back the request it was waiting on (`id`): back to working, said in the transcript. A
 * withdrawal of any other request changes nothing. */
export function withdrawn(state: RunnerState, id: unknown, source: string, now: number): Reduction {
  if (!state.pending || state.pending.id !== String(id)) return {}
  return {
    state: { pending: undefined, phase: { value: 'working', source, at: now } },
    transcript: [{ kind: 'system', text: `the harness withdrew its ${state.pending.kind} request` }],
  }
}

/** How a turn's end is applied once a harness has read it (`base`: the harness's own fields; `source`: the event).
 * Every end clears the pending request and the retry state, and keeps the error when the turn failed. A
 * first turn that failed before any work is a failure to start (`failedToStart`: its evidence; the input is closed,
 * the harness ends); else held messages go out as the next turn (`sendHeld`: the text to send); else the lane is
 * idle, with its error when the turn failed. */
export function endOfTurn(f: {
  base: Partial<RunnerState>
  transcript: TranscriptLine[]
  now: number
  source: string
  error?: string
  failedToStart?: Partial<RunnerState>
  sendHeld?: string
}): Reduction {
  const { transcript, now, source, error } = f
  const base: Partial<RunnerState> = {
    ...f.base,
    pending: undefined,
    retrying: undefined,
    gaveUp: undefined,
    ...(error ? { lastError: { at: now, message: error } } : {}),
  }
  if (f.failedToStart) return { state: { ...base, ...f.failedToStart }, transcript, closeInput: true }
  if (f.sendHeld !== undefined)
    return {
      state: { ...base, queued: [], phase: { value: 'working', source: `${source}; held messages sent`, at: now } },
      transcript,
      stdin: f.sendHeld,
    }
  return {
    state: { ...base, phase: error ? errorIdlePhase(error, now) : { value: 'idle', source, at: now } },
    transcript,
  }
}
