import type { RunnerState } from './runner-state.js'

/** What a harness's own words mean for its activity: the rules the claude and codex adapters share, pure. */

type Phase = NonNullable<RunnerState['phase']>

/** Claude assistant error kinds after which no turn can succeed until the user acts (log in, pay, verify). */
const CLAUDE_FATAL_ERRORS = [
  'authentication_failed',
  'oauth_org_not_allowed',
  'billing_error',
  'account_on_hold',
  'verification_required',
  'cloud_credential_error',
] as const

export const isFatalClaudeError = (kind: unknown): boolean =>
  typeof kind === 'string' && (CLAUDE_FATAL_ERRORS as readonly string[]).includes(kind)

/** Working, and the harness says it is retrying: the evidence is its own text. */
export const retryingPhase = (message: string, at: number): Phase => ({
  value: 'working',
  source: 'retrying',
  detail: message,
  at,
})

/** Idle after a turn that ended in an error: the evidence is the harness's error text. */
export const errorIdlePhase = (message: string, at: number): Phase => ({
  value: 'idle',
  source: 'error',
  detail: message,
  at,
})

export const isRetrying = (phase: RunnerState['phase']): boolean => phase?.source === 'retrying'

/** Nothing ran yet: no finished turn and no work seen. Only then is a failure a failure to start; a first turn that
 * ran tool calls or gave output and then failed (a 529, a 401, a broken stream) is a turn that failed. */
export const nothingRan = (state: Pick<RunnerState, 'turns' | 'worked'>): boolean => !state.turns && !state.worked

/** The state that records the harness's first work (`what`: a tool call, output); nothing once it is recorded. */
export const firstWork = (state: Pick<RunnerState, 'worked'>, what: string, at: number): Partial<RunnerState> =>
  state.worked ? {} : { worked: { at, detail: what } }

/** The turn a phase change leaves: working or needs-you continues the open turn or begins one; idle ends the open
 * one. A message sent while a turn runs is held and joins it, so a turn spans a message to the idle that answers it. */
export function nextTurn(turn: RunnerState['turn'], phase: RunnerState['phase'], now: number): RunnerState['turn'] {
  const open = turn !== undefined && turn.ended === undefined
  if (!phase) return turn
  if (phase.value !== 'idle') return open ? turn : { started: now }
  return open ? { ...turn, ended: now } : turn
}

/** The error text of a claude `result` event, or undefined for a turn that succeeded. Error results carry
 * `errors[]` (and often no `result`); an API failure is `is_error` with the message in `result`. */
export function claudeResultError(ev: {
  is_error?: unknown
  errors?: unknown
  result?: unknown
  subtype?: unknown
}): string | undefined {
  const errors = Array.isArray(ev.errors) ? ev.errors.map(String).filter((e) => e.trim()) : []
  if (!ev.is_error && !errors.length) return undefined
  if (errors.length) return errors.join('; ')
  if (typeof ev.result === 'string' && ev.result.trim()) return ev.result
  return `turn ended with ${String(ev.subtype ?? 'an error')}`
}

/** Claude's `system/api_retry` event in words: `API error 401 authentication_failed; retry 2/10 in 1.0 s`. */
export function claudeRetryText(ev: {
  attempt?: unknown
  max_retries?: unknown
  retry_delay_ms?: unknown
  error_status?: unknown
  error?: unknown
}): string {
  const status = typeof ev.error_status === 'number' ? ` ${ev.error_status}` : ''
  const kind = typeof ev.error === 'string' ? ` ${ev.error}` : ''
  const delay = typeof ev.retry_delay_ms === 'number' ? ` in ${(ev.retry_delay_ms / 1000).toFixed(1)} s` : ''
  return `API error${status}${kind}; retry ${String(ev.attempt ?? '?')}/${String(ev.max_retries ?? '?')}${delay}`
}

/** Codex's `error` events that announce a retry ("Reconnecting... 2/5 (…)", "Reconnecting... waiting for network"). */
export const isCodexRetry = (message: string): boolean => /^Reconnecting\b/.test(message)

/** A retry loop is watched from its first retry until the harness makes progress (anything but another retry). */
interface RetryWatch {
  since: number
  message: string
}

export function nextRetryWatch(
  prev: RetryWatch | undefined,
  phase: RunnerState['phase'],
  now: number,
): RetryWatch | undefined {
  if (!isRetrying(phase)) return undefined
  return { since: prev?.since ?? now, message: phase!.detail ?? prev?.message ?? 'retrying' }
}

/** How long a harness may retry without progress before the runner interrupts its turn (SPEC.md's wait rules then
 * see an idle lane, where an endless retry would keep it working forever). */
export const RETRY_LIMIT_MS = 10 * 60 * 1000

/** The limit from its setting (milliseconds), else the default; a setting that is no positive number is ignored. */
export function retryLimitMs(setting: string | undefined): number {
  const n = Number(setting)
  return setting !== undefined && Number.isFinite(n) && n > 0 ? n : RETRY_LIMIT_MS
}

/** Has the retry loop gone on too long? Then the evidence the interrupted turn leaves: the harness's last retry
 * text and how long it retried. */
export function retryVerdict(
  watch: RetryWatch | undefined,
  now: number,
  limitMs: number,
): { exceeded: false; inMs: number } | { exceeded: true; message: string } {
  if (!watch) return { exceeded: false, inMs: limitMs }
  const spent = now - watch.since
  if (spent < limitMs) return { exceeded: false, inMs: limitMs - spent }
  return {
    exceeded: true,
    message: `${watch.message} (retried ${Math.round(spent / 1000)} s without progress; turn interrupted)`,
  }
}
