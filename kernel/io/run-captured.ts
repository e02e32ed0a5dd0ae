import { spawn } from 'node:child_process'

export interface Captured {
  /** null when it was killed past its deadline or could not start. */
  code: number | null
  stdout: string
  stderr: string
  timedOut?: boolean
  /** Why it could not be started (ENOENT: not on the PATH). */
  spawnError?: NodeJS.ErrnoException
}

/** Run a program (no shell) with `input` on its stdin; its output kept (up to `keep` characters of each stream),
 * killed past `timeoutMs`. Never throws. */
export function runCaptured(
  cmd: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; input?: string; keep?: number },
): Promise<Captured> {
  const keep = opts.keep ?? Infinity
  return new Promise((resolve) => {
    let child
    try {
      child = spawn(cmd, args, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] })
    } catch (e) {
      return resolve({ code: null, stdout: '', stderr: '', spawnError: e as NodeJS.ErrnoException })
    }
    let stdout = ''
    let stderr = ''
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, opts.timeoutMs)
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < keep) stdout += d.toString('utf8')
    })
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < keep) stderr += d.toString('utf8')
    })
    child.stdin.on('error', () => {})
    child.on('error', (e) => {
      clearTimeout(timer)
      resolve({ code: null, stdout, stderr, spawnError: e as NodeJS.ErrnoException })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: timedOut ? null : code, stdout, stderr, ...(timedOut ? { timedOut } : {}) })
    })
    child.stdin.end(opts.input ?? '')
  })
}
