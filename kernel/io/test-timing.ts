/** Timings a test build may shorten, so that a test waits milliseconds for what takes seconds in use: with
 * SERVICE_TEST_BUILD=1, SERVICE_TEST_<NAME>_MS=<n> replaces the default. Any other build ignores them, as it
 * ignores the fault hook (./fault.ts). */
export function testTiming(name: string, defaultMs: number): number {
  const given = process.env[`SERVICE_TEST_${name}_MS`]
  return process.env.SERVICE_TEST_BUILD === '1' && given !== undefined && /^\d+$/.test(given) ? Number(given) : defaultMs
}
