import type { ErrorCode } from '../kernel/domain/errors.js'

/** The one place an error code becomes an exit code (SPEC.md 4.1: refusals and usage errors exit 1). */
export const EXIT_CODE: Record<ErrorCode, number> = {
  usage: 1,
  unauthorized: 1,
  forbidden: 1,
  not_found: 1,
  conflict: 1,
  too_large: 1,
  not_inside_lane: 1,
  unavailable: 1,
  internal: 1,
}
