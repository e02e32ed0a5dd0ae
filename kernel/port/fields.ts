import * as v from 'valibot'
import { REPORT_STATUSES } from '../domain/keys.js'
import { MAX_TEXT } from './limits.js'

/** The fields the port's input schemas are made of (kernel/port/port.ts, kernel/port/workers.ts). */

export { MAX_TEXT }
export const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`))
export const ref = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(200, 'must be at most 200 characters'),
)
export const opt = v.optional
/** A conversation's key (SERVICE_CONVERSATION_KEY), given by a request that acts as that conversation. */
export const key = text(200)

/** `svc lane report` and `svc worker report` take the same options. */
export const ReportRequestSchema = v.strictObject({
  conversation: opt(ref),
  conversationKey: opt(key),
  body: text(MAX_TEXT),
  status: opt(v.picklist(REPORT_STATUSES, 'must be one of done, blocked, failed')),
  allowUnpushed: opt(v.boolean()),
  verdict: opt(text(40)),
  defects: opt(v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(0, 'must be 0 or more'))),
  verdictFile: opt(v.strictObject({ path: text(4096), text: text(MAX_TEXT) })),
})
