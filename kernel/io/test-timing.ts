/** A number a test sets for a timing or a limit (SERVICE_TEST_<NAME>=<n>, test builds only, SERVICE_TEST_BUILD=1),
 * else undefined. Any other build ignores them, as it ignores the fault hook (./fault.ts). */
export function testNumber(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.SERVICE_TEST_BUILD === '1' ? env[`SERVICE_TEST_${name}`] : undefined
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined
}

/** Timings a test build may shorten, so that a test waits milliseconds for what takes seconds in use:
 * SERVICE_TEST_<NAME>_MS=<n> replaces the default. */
export const testTiming = (name: string, defaultMs: number, env: NodeJS.ProcessEnv = process.env): number =>
  testNumber(`${name}_MS`, env) ?? defaultMs
