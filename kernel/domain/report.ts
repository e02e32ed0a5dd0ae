import type { ReportStatus, Verdict } from './keys.js'

export interface Report {
  seq: number
  at: number
  status: ReportStatus
  body: string
  /** Git facts at the moment of the report, for git-backed lanes. */
  head?: string
  branch?: string
  verdict?: Verdict
  defects?: number
  /** Path of the verdict file as kept in the conversation directory. */
  verdictFile?: string
  /** For a critic or verifier: the commit its verdict judges. */
  judged?: string
}
