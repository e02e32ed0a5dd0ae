/** SPEC.md section 8, limits that are times (the others live beside the rule they bound: STARTING_WINDOW_MS in
 * activity.ts, IDLE_LIMIT_MS in wait.ts, the key patterns in keys.ts). */

/** SPEC.md 8: `start` waits up to 180 s for the lane to have started. */
export const START_WAIT_LIMIT_MS = 180_000

/** SPEC.md 8 and 4.1 reap step 1: a live harness has 30 s to stop before the reap is refused. */
export const REAP_STOP_LIMIT_MS = 30_000

/** SPEC.md 4.1 start, --replace (and worker run): the live one has as long to stop as a reap gives it. */
export const REPLACE_STOP_LIMIT_MS = REAP_STOP_LIMIT_MS
