import type { Attempt } from '../domain/retry.js'
import { runProcess } from './process.js'

const STDERR_KEEP = 2000

/** Run a program (no shell) with `input` on its stdin and these variables added to the environment; killed with
 * its process group past `timeoutMs`. The outcome as an attempt, with the first line of its stderr on a failure.
 * Never throws. */
export async function runCommand(
  argv: readonly string[],
  opts: { input: string; env: Record<string, string>; timeoutMs: number },
): Promise<Attempt> {
  const r = await runProcess(argv, {
    env: { ...process.env, ...opts.env },
    input: opts.input,
    timeoutMs: opts.timeoutMs,
    group: true,
    ignoreStdout: true,
    keep: STDERR_KEEP,
  })
  if (r.error !== undefined) return { ok: false, error: `cannot run ${argv[0]}: ${r.error}` }
  if (r.timedOut) return { ok: false, error: `still running after ${opts.timeoutMs} ms; killed` }
  if (r.code === 0) return { ok: true }
  const said = r.stderr
    .split('\n')
    .find((l) => l.trim())
    ?.trim()
  return {
    ok: false,
    error: `${argv[0]} ${r.signal ? `ended by ${r.signal}` : `exited ${r.code}`}${said ? `: ${said}` : ''}`,
  }
}
