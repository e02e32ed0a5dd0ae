import type { ChildProcess } from 'node:child_process'
import { constants } from 'node:os'
import { createInterface } from 'node:readline'
import type { LaunchPlan } from '../io/harness/types.js'
import { procPidIn } from '../io/pid-namespace.js'
import { startDriven } from '../io/process.js'
import { processStartTime } from '../io/procs.js'
import { findProgram, supervisedArgv } from '../io/subreaper.js'

const STDERR_TAIL = 20
/** After the exit, the last output lines get this long to arrive, unless a leftover child keeps the pipes open. */
const DRAIN_MS = 500

export interface HarnessExit {
  code: number | null
  signal: NodeJS.Signals | null
  stderrTail: string[]
}

/** One running harness process under its lane's supervisor (io/subreaper): its input, its signals, its end (after
 * its last output lines were read), and the supervisor, which the kernel knows as the lane's runner. */
export interface HarnessProcess {
  /** The harness's pid as /proc names it, and its start time (none: it had ended by the time it was read). */
  pid: number
  start: string
  /** The lane's supervisor (the root of the lane's process tree), as /proc names it. */
  supervisor: { pid: number; start: string }
  write(text: string): void
  closeInput(): void
  kill(signal: NodeJS.Signals): void
  exited: Promise<HarnessExit>
  /** The supervisor is gone: every process of the lane has ended. `exitSeen`: the harness's end was told first (it
   * was not, when the supervisor was killed). */
  gone: Promise<{ exitSeen: boolean }>
}

interface HarnessOutput {
  stdout: (line: string) => void
  stderr: (line: string) => void
  /** The supervisor got a stop signal (the kernel's stop). */
  stop: (signal: NodeJS.Signals) => void
}

const signalName = (n: number): NodeJS.Signals | null =>
  (Object.entries(constants.signals).find(([, v]) => v === n)?.[0] as NodeJS.Signals | undefined) ?? null
const errnoName = (n: number) => Object.entries(constants.errno).find(([, v]) => v === n)?.[0] ?? `errno ${n}`

/** Start a harness process in its directory with its environment, under a supervisor of its own; a failure to
 * start it (a missing binary, a directory that is gone) is an error text, never a throw. */
export async function startHarness(
  plan: LaunchPlan,
  cwd: string,
  env: NodeJS.ProcessEnv,
  out: HarnessOutput,
): Promise<HarnessProcess | { error: string }> {
  const notFound = `${plan.command}: command not found (spawn ${plan.command} ENOENT)`
  if (!findProgram(plan.command, env.PATH)) return { error: notFound }
  const argv = supervisedArgv([plan.command, ...plan.args], cwd)
  if (!argv) return { error: `${plan.command}: lanes need Linux and perl to run (no lane supervisor here)` }
  let child: ChildProcess
  try {
    // Detached: the supervisor leads the lane's process group and session. Its directory is the root: the harness
    // alone starts in the lane's.
    child = startDriven(argv, { cwd: '/', env, stdin: plan.stdin !== 'none', status: true, detached: true })
  } catch (e) {
    return { error: `could not start ${plan.command}: ${(e as Error).message}` }
  }
  child.on('error', () => {}) // a spawn failure is told by the 'exit' below, as the supervisor gone
  child.stdin?.on('error', () => {}) // a harness that exits while we write: its exit is what matters
  const tail: string[] = []
  createInterface({ input: child.stdout! }).on('line', out.stdout)
  createInterface({ input: child.stderr! }).on('line', (line) => {
    tail.push(line)
    if (tail.length > STDERR_TAIL) tail.shift()
    out.stderr(line)
  })
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const supervisorExit = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  })

  // The supervisor alone holds its end of the status pipe: once it is read to its end, every line it wrote was seen
  // (its exit may be told before its last lines are read).
  const status = createInterface({ input: child.stdio[3] as NodeJS.ReadableStream })
  status.on('error', () => {})
  const statusRead = new Promise<void>((resolve) => status.once('close', () => resolve()))
  let supervisor: { pid: number; start: string } | undefined
  let harness: { pid: number; start: string } | undefined
  let exitSeen = false
  let onExit!: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void
  const exitLine = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (onExit = r))
  const started = new Promise<{ error: string } | undefined>((resolve) => {
    void Promise.all([supervisorExit, statusRead]).then(() =>
      resolve({ error: `${plan.command}: its lane's supervisor ended before it started` }),
    )
    // One lane's line never ends the runner that drives every lane: what cannot be read is told as its stderr.
    status.on('line', (line) => {
      try {
        statusLine(line)
      } catch (e) {
        out.stderr(`svc: the lane's supervisor said ${JSON.stringify(line)}: ${(e as Error).message}`)
      }
    })
    const statusLine = (line: string) => {
      const [what, a, b] = line.split(' ')
      if (what === 'init') {
        const pid = Number(a)
        supervisor = { pid, start: processStartTime(pid) ?? '' }
      } else if (what === 'harness' && supervisor) {
        const pid = procPidIn(Number(a), supervisor.pid)
        // Gone already (it ended at once), it keeps the pid its namespace gave it, with no start time: no one's (that
        // pid names another process here).
        harness = { pid: pid ?? Number(a), start: (pid && processStartTime(pid)) || '' }
        resolve(undefined)
      } else if (what === 'unstarted') {
        const code = errnoName(Number(a))
        resolve({ error: code === 'ENOENT' ? notFound : `${plan.command}: spawn ${plan.command} ${code}` })
      } else if (what === 'stop') out.stop(`SIG${a}` as NodeJS.Signals)
      else if (what === 'exit') {
        exitSeen = true
        onExit({ code: a === '-' ? null : Number(a), signal: b === '-' ? null : signalName(Number(b)) })
      }
    }
  })
  const failed = await started
  if (failed || !supervisor || !harness) {
    child.kill('SIGKILL')
    return failed ?? { error: `${plan.command}: it ended as it started` }
  }
  const exited = exitLine.then(async ({ code, signal }) => {
    await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS))])
    return { code, signal, stderrTail: [...tail] }
  })
  if (plan.initialInput) child.stdin?.write(plan.initialInput)
  const { pid, start } = harness
  return {
    pid,
    start,
    supervisor,
    write: (text) => {
      if (child.stdin?.writable) child.stdin.write(text)
    },
    closeInput: () => child.stdin?.end(),
    kill: (signal) => {
      if (exitSeen || !start) return // its pid may be another process's by now
      try {
        process.kill(pid, signal)
      } catch {}
    },
    exited,
    gone: Promise.all([supervisorExit, statusRead]).then(() => ({ exitSeen })),
  }
}
