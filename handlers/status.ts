import type { ErrorCode } from '../kernel/domain/errors.js'

/** The one place an error code becomes an HTTP status. */
export const HTTP_STATUS: Record<ErrorCode, 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503> = {
  usage: 400,
  not_inside_lane: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unavailable: 503,
  internal: 500,
}
