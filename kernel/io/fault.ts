/** Fault injection for the crash-safety suite: with SERVICE_FAULT_KILL_AT=<n> (honoured only when
 * SERVICE_TEST_BUILD=1), the process kills itself with SIGKILL at the n-th fault point (each store write step, and
 * the steps of a launch); with SERVICE_FAULT_KILL_AT=<name>, at the first fault point of that name. */
const at = process.env.SERVICE_TEST_BUILD === '1' ? (process.env.SERVICE_FAULT_KILL_AT ?? '') : ''
const killAt = /^\d+$/.test(at) ? Number(at) : 0
const killAtName = /^[a-z-]+$/.test(at) ? at : undefined
let steps = 0

export function faultPoint(step: string): void {
  if (!killAt && !killAtName) return
  steps += 1
  if (steps === killAt || step === killAtName) process.kill(process.pid, 'SIGKILL')
}

/** A named fault (SERVICE_FAULT_<NAME>=1, test builds only): the caller fails as if the operation had failed. */
export function faultFlag(name: string): boolean {
  return process.env.SERVICE_TEST_BUILD === '1' && process.env[`SERVICE_FAULT_${name}`] === '1'
}

/** A number a test sets for a timing or a limit (SERVICE_TEST_<NAME>=<n>, test builds only), else undefined. */
export function testNumber(name: string): number | undefined {
  const raw = process.env.SERVICE_TEST_BUILD === '1' ? process.env[`SERVICE_TEST_${name}`] : undefined
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
}
