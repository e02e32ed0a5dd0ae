/** What the Command Deck counts per run. Each lane counts once by its activity (working, needs-you, idle, host-lost,
 * or other: starting, stopped, failed to start, archived), and besides: reported when it filed a report, stale when it
 * is a critic or verifier whose own verdict judged a commit its builder has moved past (a builder showing that verdict
 * is not counted again), and failed when it ended failed and is not archived. */
export interface RunCounts {
  working: number
  'needs-you': number
  idle: number
  /** Lanes whose host stopped answering (issue 27): what they do there is not known now. */
  'host-lost': number
  other: number
  reported: number
  stale: number
  /** Lanes, not archived, that failed (LaneView.failed): never started, or ended with no report after an exit code
   * other than 0, a signal or a vanished runner. */
  failed: number
}

export interface CountedLane {
  id: string
  run: string
  activity: string
  archived: boolean
  report?: unknown
  failed?: unknown
  verdict?: { stale: boolean; by: string }
}

const BY_ACTIVITY = ['working', 'needs-you', 'idle', 'host-lost'] as const

export function runCounts(lanes: CountedLane[]): Record<string, RunCounts> {
  const out: Record<string, RunCounts> = {}
  for (const l of lanes) {
    const c = (out[l.run] ??= {
      working: 0,
      'needs-you': 0,
      idle: 0,
      'host-lost': 0,
      other: 0,
      reported: 0,
      stale: 0,
      failed: 0,
    })
    const bucket = BY_ACTIVITY.find((a) => a === l.activity && !l.archived)
    c[bucket ?? 'other']++
    if (l.report) c.reported++
    if (l.failed && !l.archived) c.failed++
    if (l.verdict?.stale && l.verdict.by === l.id) c.stale++
  }
  return out
}
