import type { ErrorCode } from './errors.js'

/** How every rule of the rulebook answers: a decision is data. A refusal carries its error code and its exact
 * message (and a hint); the services turn it into the one SvcError at one place (services/decided.ts). */
export interface Refusal {
  ok: false
  code: ErrorCode
  message: string
  hint?: string
}
export type Decision<T = object> = ({ ok: true } & T) | Refusal

export const refuse = (code: ErrorCode, message: string, hint?: string): Refusal =>
  hint === undefined ? { ok: false, code, message } : { ok: false, code, message, hint }

export const allow = <T extends object>(value: T): Decision<T> => ({ ok: true, ...value })

export const ALLOWED: Decision = { ok: true }
