import { SvcError, diskFullError, isDiskFull, isErrorCode, oneLine, type ErrorCode } from '../kernel/domain/errors.js'
import { HTTP_STATUS } from './status.js'

/** The API's error body; the message is always one line. */
export const errorBody = (code: ErrorCode, message: string, hint?: string) => ({
  error: { code, message: oneLine(message), ...(hint ? { hint: oneLine(hint) } : {}) },
})

/** Any thrown value as the error body and status of the API. */
export function toErrorResponse(thrown: unknown): {
  body: ReturnType<typeof errorBody>
  status: (typeof HTTP_STATUS)[ErrorCode]
} {
  // A full disk is no internal error: it is said as one line, whatever failed to write.
  const e =
    isDiskFull(thrown) && !(thrown instanceof SvcError && thrown.code === 'unavailable')
      ? diskFullError(thrown)
      : thrown
  const err = e as { code?: unknown; message?: string; hint?: string }
  const code: ErrorCode = isErrorCode(err?.code) ? err.code : 'internal'
  const message =
    code === 'internal' && !isErrorCode(err?.code)
      ? `internal error: ${err?.message ?? String(e)}`
      : (err.message ?? 'error')
  return { body: errorBody(code, message, err.hint), status: HTTP_STATUS[code] }
}
