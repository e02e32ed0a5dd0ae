/** Counts of one suite file from uvu's report and the exit code of its process. A file that exited non-zero with
 * no failed test counted (it crashed before or after its tests, or was stopped) counts as one failure. */
export function suiteOutcome(report: string, exitCode: number): { passed: number; failed: number } {
  const total = Number(/Total:\s+(\d+)/.exec(report)?.[1] ?? 0)
  const passed = Number(/Passed:\s+(\d+)/.exec(report)?.[1] ?? 0)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(report)?.[1] ?? 0)
  const failed = total - passed - skipped
  return { passed, failed: exitCode !== 0 && failed === 0 ? 1 : failed }
}
