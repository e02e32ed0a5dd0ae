import type { Activity, Evidence } from './activity.js'

/** How a conversation's harness ended, as its runner (or the kernel) recorded it. */
export interface EndFacts {
  source: string
  at: number
  exitCode?: number | null
  signal?: string | null
  detail?: string
}

/** An end source that means someone asked the lane to stop (the kernel's `stop`, the runner's `stop (SIGTERM)`):
 * never a failure, whatever the exit code. */
const askedToStop = (source: string) => source === 'stop' || source.startsWith('stop (')

/** A lane failed when it ended without filing any report and nobody asked it to stop: it never started (a spawn
 * error), its harness exited with a code other than 0 (3, 127, ...) or was killed by a signal, or its runner
 * vanished without writing an end (found by the reconcile). Such a lane reads `stopped` in SPEC.md 3's activity
 * column; this is the evidence that it is not finished but failed. An exit 0 without a report is not a failure here
 * (it stopped; the wait verb says so with exit 2). */
export function laneFailure(f: {
  activity: Activity
  reported: boolean
  spawnError?: Evidence
  end?: EndFacts
}): Evidence | undefined {
  if (f.reported) return undefined
  if (f.activity === 'failed-to-start' && f.spawnError) return f.spawnError
  if (f.activity !== 'stopped' || !f.end || askedToStop(f.end.source)) return undefined
  const { source, at } = f.end
  if (f.end.signal) return { source, at, detail: `signal ${f.end.signal}` }
  if (typeof f.end.exitCode === 'number')
    return f.end.exitCode === 0 ? undefined : { source, at, detail: `exit code ${f.end.exitCode}` }
  // Recorded by the kernel (the runner was found gone, without an exit code): its detail says what was found.
  return source === 'reconcile' ? { source, at, ...(f.end.detail ? { detail: f.end.detail } : {}) } : undefined
}
