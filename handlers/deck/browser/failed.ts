import type { ConvView, LaneView } from '../../../kernel/port/port.js'

/** Why a lane failed, in a few words, from the kernel's own finding (LaneView.failed: it ended with no report after a
 * spawn error, an exit code other than 0, a signal or a vanished runner); undefined when it did not, or is archived.
 * A failed lane must never look merely stopped. */
export function failure(v: ConvView | LaneView): string | undefined {
  const f = 'failed' in v ? v.failed : undefined
  if (!f || v.archived) return undefined
  const why = f.detail ?? f.source
  return v.activity === 'failed-to-start' ? why : `${why}, no report`
}
