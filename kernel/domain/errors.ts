import { printable } from './printable.js'

/** The one error type of the project. Its code is mapped to an exit code (cli/exit-code.ts) and to an HTTP
 * status (handlers/status.ts), each in exactly one place. */
export const ERROR_CODES = [
  'usage',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'too_large',
  'not_inside_lane',
  'unavailable',
  'internal',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Text from outside shown on one bounded line: control characters escaped, long values cut. */
export function oneLine(s: string, max = 1000): string {
  const clean = printable(s)
  return clean.length > max ? clean.slice(0, max - 3) + '...' : clean
}

/** Input echoed in a message stays on one line and short. */
export const shortLine = (s: string) => oneLine(s, 80)

/** Errors are one line (whatever input they quote), with an optional hint. */
export class SvcError extends Error {
  readonly code: ErrorCode
  readonly hint?: string
  constructor(code: ErrorCode, message: string, hint?: string) {
    super(oneLine(message))
    this.code = code
    this.hint = hint === undefined ? undefined : oneLine(hint)
  }
}

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value)

/** Did this error come of a full disk (ENOSPC from a write, or a program's "No space left on device")? */
export function isDiskFull(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | undefined
  return (
    err?.code === 'ENOSPC' || (typeof err?.message === 'string' && /ENOSPC|No space left on device/.test(err.message))
  )
}

/** A full disk as one line: which file could not be written (when known) and what to do. */
export const diskFullError = (e: unknown) => {
  const path = (e as { path?: unknown } | undefined)?.path
  return new SvcError(
    'unavailable',
    `disk full${typeof path === 'string' ? `: cannot write ${path}` : ''}; nothing was stored: free some space and ` +
      `try again`,
  )
}
