import { SvcError } from '../domain/errors.js'
import type { Decision } from '../domain/refusal.js'

/** The one place a refusal of the rulebook becomes the SvcError a caller sees. */
export function decided<T>(d: Decision<T>): { ok: true } & T {
  if (!d.ok) throw new SvcError(d.code, d.message, d.hint)
  return d
}
