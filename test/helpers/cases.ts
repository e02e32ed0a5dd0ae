/** How many random cases a property suite draws. Every run draws the quick count, enough to meet every kind of case
 * it asserts on; the nightly run (SERVICE_TEST_FULL=1) draws the full count, and the suite's own variable, when set,
 * gives any count. A random seed differs from run to run, so the quick runs together still cover new trees. */
export function caseCount(variable: string, counts: { quick: number; full: number }): number {
  const own = process.env[variable]
  if (own !== undefined && own !== '') {
    const n = Number(own)
    if (!Number.isInteger(n) || n < 1) throw new Error(`${variable}=${own}: give a whole number of cases, 1 or more`)
    return n
  }
  return process.env.SERVICE_TEST_FULL === '1' ? counts.full : counts.quick
}
