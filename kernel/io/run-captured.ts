import { runProcess } from './process.js'

export interface Captured {
  /** null when it was killed past its deadline or could not start. */
  code: number | null
  stdout: string
  stderr: string
  timedOut?: boolean
  /** Why it could not be started (ENOENT: not on the PATH). */
  spawnError?: { code?: string; message: string }
}

/** Run a program (no shell, through io/process.ts) with `input` on its stdin; its output kept (up to `keep`
 * characters of each stream), killed past `timeoutMs`. Never throws. */
export async function runCaptured(
  cmd: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; input?: string; keep?: number },
): Promise<Captured> {
  const r = await runProcess([cmd, ...args], opts)
  if (r.error !== undefined)
    return {
      code: null,
      stdout: '',
      stderr: '',
      spawnError: { code: r.missing ? 'ENOENT' : undefined, message: r.error },
    }
  return {
    code: r.timedOut ? null : r.code,
    stdout: r.stdout,
    stderr: r.stderr,
    ...(r.timedOut ? { timedOut: true } : {}),
  }
}
