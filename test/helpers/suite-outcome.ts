/** Counts of one suite file from uvu's report and the exit code of its process. A file that exited non-zero with
 * no failed test counted (it crashed before or after its tests, or was stopped) counts as one failure, and so does
 * one that ran no test at all (its tests never queued, or it ended before uvu's report): it proved nothing. */
export function suiteOutcome(report: string, exitCode: number): { passed: number; failed: number } {
  const total = Number(/Total:\s+(\d+)/.exec(report)?.[1] ?? 0)
  if (total === 0) return { passed: 0, failed: 1 }
  const passed = Number(/Passed:\s+(\d+)/.exec(report)?.[1] ?? 0)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(report)?.[1] ?? 0)
  const failed = total - passed - skipped
  return { passed, failed: exitCode !== 0 && failed === 0 ? 1 : failed }
}

const RECAP_LINES = 40

/** What a failed suite file said about its failures, for the recap at the end of a run: from uvu's first `FAIL`
 * line on (or, for a file that crashed without one, its last lines), colours stripped, at most RECAP_LINES lines. */
export function failureRecap(name: string, report: string): string {
  const plain = report.replace(/\x1b\[[0-9;]*m/g, '')
  const at = plain.search(/^[ \t]*FAIL\b/m)
  const lines = (at >= 0 ? plain.slice(at) : plain).trimEnd().split('\n')
  const shown = at >= 0 ? lines.slice(0, RECAP_LINES) : lines.slice(-RECAP_LINES)
  const cut = lines.length > shown.length ? [`(${lines.length - shown.length} more lines in its report above)`] : []
  return [`FAILED ${name}:`, ...(at >= 0 ? shown.concat(cut) : cut.concat(shown)), ''].join('\n')
}
