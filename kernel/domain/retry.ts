/** How a delivery is retried: `tries` attempts in all, the n-th retry `firstDelayMs * factor^(n-1)` after the
 * failure before it. */
export interface RetrySchedule {
  tries: number
  firstDelayMs: number
  factor: number
}

export type Attempt = { ok: true } | { ok: false; error: string; permanent?: boolean }

type AfterAttempt = { do: 'done' } | { do: 'retry'; inMs: number } | { do: 'give-up'; why: string }

/** What follows attempt `n` (1-based) with this outcome. */
export function afterAttempt(schedule: RetrySchedule, n: number, outcome: Attempt): AfterAttempt {
  if (outcome.ok) return { do: 'done' }
  if (outcome.permanent) return { do: 'give-up', why: `${outcome.error} (not retried)` }
  if (n >= schedule.tries)
    return { do: 'give-up', why: n > 1 ? `${outcome.error} (gave up after ${n} tries)` : outcome.error }
  return { do: 'retry', inMs: schedule.firstDelayMs * schedule.factor ** (n - 1) }
}

/** An HTTP answer as an attempt: 2xx delivered; 408, 429 and 5xx worth another try; any other refusal is final. */
export function httpAttempt(status: number): Attempt {
  if (status >= 200 && status < 300) return { ok: true }
  const retryable = status === 408 || status === 429 || status >= 500
  return { ok: false, error: `HTTP ${status}`, ...(retryable ? {} : { permanent: true }) }
}
