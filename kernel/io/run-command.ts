import { spawn } from 'node:child_process'
import type { Attempt } from '../domain/retry.js'

const STDERR_KEEP = 2000

/** Run a program (no shell) with `input` on its stdin and these variables added to the environment; killed with
 * its process group past `timeoutMs`. The outcome as an attempt, with the first line of its stderr on a failure.
 * Never throws. */
export function runCommand(
  argv: readonly string[],
  opts: { input: string; env: Record<string, string>; timeoutMs: number },
): Promise<Attempt> {
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(argv[0], argv.slice(1), {
        env: { ...process.env, ...opts.env },
        stdio: ['pipe', 'ignore', 'pipe'],
        detached: true,
      })
    } catch (e) {
      return resolve({ ok: false, error: (e as Error).message })
    }
    let stderr = ''
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
    }, opts.timeoutMs)
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < STDERR_KEEP) stderr += d.toString('utf8')
    })
    child.on('error', (e) => {
      clearTimeout(timer)
      resolve({ ok: false, error: `cannot run ${argv[0]}: ${e.message}` })
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const said = stderr
        .split('\n')
        .find((l) => l.trim())
        ?.trim()
      if (timedOut) resolve({ ok: false, error: `still running after ${opts.timeoutMs} ms; killed` })
      else if (code === 0) resolve({ ok: true })
      else
        resolve({
          ok: false,
          error: `${argv[0]} ${signal ? `ended by ${signal}` : `exited ${code}`}${said ? `: ${said}` : ''}`,
        })
    })
    // A program that exits without reading its input closes the pipe: that is its business, not a failure.
    child.stdin!.on('error', () => {})
    child.stdin!.end(opts.input)
  })
}
