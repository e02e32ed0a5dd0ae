/** Fault injection for the crash-safety suite: with SERVICE_FAULT_KILL_AT=<n> (honoured only when
 * SERVICE_TEST_BUILD=1), the process kills itself with SIGKILL at the n-th store write step. */
const armed = process.env.SERVICE_TEST_BUILD === '1' && /^\d+$/.test(process.env.SERVICE_FAULT_KILL_AT ?? '')
const killAt = armed ? Number(process.env.SERVICE_FAULT_KILL_AT) : 0
let steps = 0

export function faultPoint(_step: string): void {
  if (!armed) return
  steps += 1
  if (steps === killAt) process.kill(process.pid, 'SIGKILL')
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
