import * as v from 'valibot'
import { REPORT_STATUSES, VERDICTS } from './keys.js'

const num = v.pipe(v.number(), v.finite())
const opt = v.optional

export const ReportSchema = v.object({
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  at: num,
  status: v.picklist(REPORT_STATUSES),
  body: v.string(),
  /** Git facts at the moment of the report, for git-backed lanes. */
  head: opt(v.string()),
  branch: opt(v.string()),
  verdict: opt(v.picklist(VERDICTS)),
  defects: opt(num),
  /** Path of the verdict file as kept in the conversation directory. */
  verdictFile: opt(v.string()),
  /** For a critic or verifier: the commit its verdict judges. */
  judged: opt(v.string()),
  /** A report filed on a host: the name it was filed under there, so that one sent again is stored once. */
  hostReport: opt(v.string()),
})
export type Report = v.InferOutput<typeof ReportSchema>

/** A conversation's reports file. */
export const ReportsDocSchema = v.object({ reports: v.array(ReportSchema) })
export type ReportsDoc = v.InferOutput<typeof ReportsDocSchema>
