import type { ConvView, LaneView } from '../../../kernel/port/port.js'

type Viewed = Pick<ConvView | LaneView, 'activity' | 'archived' | 'evidence'> & {
  report?: { status: string }
}

/** Why a conversation that is over failed, in a few words; undefined when it did not (it is live, archived, or ended
 * well: a report, or exit code 0). A failed lane must never look merely stopped: it could not start, its harness
 * died without a report (an exit code or a signal), or it reported that the brief cannot be done. */
export function failure(v: Viewed): string | undefined {
  if (v.archived) return undefined
  if (v.activity === 'failed-to-start') return v.evidence.detail ?? 'could not start'
  if (v.activity !== 'stopped') return undefined
  if (v.report?.status === 'failed') return 'reported failed'
  const e = v.evidence
  if (!v.report && e.source === 'process exit' && e.detail && e.detail !== 'exit code 0')
    return `${e.detail}, no report`
  return undefined
}
