import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process'

/** The one way this project runs a program: an argument array, never a shell, so no argument is ever parsed by one.
 * A process result never leaves its adapter: callers of these adapters get strings, booleans or an SvcError. */

/** How a program that ran to its end ended. `error` when it could not be started at all (`missing`: not found). */
export interface Ran {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  error?: string
  missing?: boolean
}

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Written to its stdin, which is then closed (a program that does not read it is no failure). */
  input?: string
  /** Past this the program is killed (with its process group when `group`) and the result says `timedOut`. */
  timeoutMs?: number
  /** Run it as a process group of its own, so a timeout kills what it started too. */
  group?: boolean
  /** Keep at most about this many characters of each stream (all of it when not given). */
  keep?: number
  ignoreStdout?: boolean
}

/** Starts of programs waiting their turn. A start holds the thread until the program is forked and executing (3 ms
 * on a quiet machine, 20 ms and more on a busy one), so a burst of them in one turn of the event loop (a reap asks
 * git a handful of things at once) would hold every other answer for the sum of them: one start per turn lets the
 * answers waiting run in between. */
const waiting: (() => void)[] = []
let starting = false

function startInTurn(start: () => void): void {
  waiting.push(start)
  if (!starting) startNext()
}

function startNext(): void {
  const start = waiting.shift()
  starting = start !== undefined
  if (!start) return
  try {
    start()
  } finally {
    setImmediate(startNext)
  }
}

/** Run a program to its end. Never throws. */
export function runProcess(argv: readonly string[], opts: RunOptions = {}): Promise<Ran> {
  return new Promise((resolve) => startInTurn(() => runTo(argv, opts, resolve)))
}

function runTo(argv: readonly string[], opts: RunOptions, resolve: (r: Ran) => void): void {
  let child: ChildProcess
  try {
    child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', opts.ignoreStdout ? 'ignore' : 'pipe', 'pipe'],
      detached: Boolean(opts.group),
    })
  } catch (e) {
    return resolve(notRun(e as NodeJS.ErrnoException))
  }
  const out: Buffer[] = []
  let stderr = ''
  let timedOut = false
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true
          try {
            if (opts.group) process.kill(-child.pid!, 'SIGKILL')
            else child.kill('SIGKILL')
          } catch {}
        }, opts.timeoutMs)
  const keep = opts.keep ?? Infinity
  let outLength = 0
  child.stdout?.on('data', (d: Buffer) => {
    if (outLength < keep) out.push(d)
    outLength += d.length
  })
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < keep) stderr += d.toString('utf8')
  })
  child.on('error', (e: NodeJS.ErrnoException) => {
    clearTimeout(timer)
    resolve(notRun(e))
  })
  child.on('close', (code, signal) => {
    clearTimeout(timer)
    resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr, timedOut })
  })
  child.stdin!.on('error', () => {})
  child.stdin!.end(opts.input ?? '')
}

const notRun = (e: NodeJS.ErrnoException): Ran => ({
  code: null,
  signal: null,
  stdout: '',
  stderr: '',
  timedOut: false,
  error: e.message,
  missing: e.code === 'ENOENT',
})

/** Run a short program and wait for it (where waiting is fine: ps, lsof, the sample project's git): its exit code
 * and output, or undefined when it could not run. */
export function runProcessSync(
  argv: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Pick<Ran, 'code' | 'stdout' | 'stderr'> | undefined {
  const r = spawnSync(argv[0], argv.slice(1), { ...opts, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  return r.error ? undefined : { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Start a program that outlives this call (a runner, the kernel, a browser opener): a process group of its own,
 * not waited for. `onError` hears a start that failed after the call returned. */
export function startDetached(
  argv: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdio?: StdioOptions; onError?: (e: Error) => void },
): ChildProcess {
  const child = spawn(argv[0], argv.slice(1), {
    detached: true,
    stdio: opts.stdio ?? 'ignore',
    cwd: opts.cwd,
    env: opts.env,
  })
  child.on('error', opts.onError ?? (() => {}))
  child.unref()
  return child
}

/** Start a program that this process drives while it runs (ssh's stream, a harness under its lane's supervisor):
 * its stdin (when asked), stdout and stderr piped, and a fourth pipe when `status` (the supervisor's lines); a
 * process group and session of its own when `detached`. */
export function startDriven(
  argv: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; stdin: boolean; status?: boolean; detached?: boolean },
): ChildProcess {
  const stdin = opts.stdin ? 'pipe' : 'ignore'
  return spawn(argv[0], argv.slice(1), {
    cwd: opts.cwd,
    env: opts.env,
    detached: Boolean(opts.detached),
    stdio: opts.status ? [stdin, 'pipe', 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe'],
  })
}
