import type { ChildProcess } from 'node:child_process'
import { startDriven } from '../io/process.js'
import { ownProcArgv } from '../io/subreaper.js'
import { inOwnPidNamespace } from '../io/pid-namespace.js'
import { createInterface } from 'node:readline'
import type { LaunchPlan } from '../io/harness/types.js'

const STDERR_TAIL = 20
/** After the exit, the last output lines get this long to arrive, unless a leftover child keeps the pipes open. */
const DRAIN_MS = 500

export interface HarnessExit {
  code: number | null
  signal: NodeJS.Signals | null
  stderrTail: string[]
}

/** One running harness process: its input, its signals, and its end (after its last output lines were read). */
export interface HarnessProcess {
  pid: number
  write(text: string): void
  closeInput(): void
  kill(signal: NodeJS.Signals): void
  exited: Promise<HarnessExit>
}

interface HarnessOutput {
  stdout: (line: string) => void
  stderr: (line: string) => void
}

/** Start a harness process in its directory with its environment; a spawn failure (a missing binary, a directory
 * that is gone) is an error text, never a throw. */
export async function startHarness(
  plan: LaunchPlan,
  cwd: string,
  env: NodeJS.ProcessEnv,
  out: HarnessOutput,
): Promise<HarnessProcess | { error: string }> {
  let child: ChildProcess
  try {
    // A lane in a PID namespace of its own is told so: svc there cannot see the kernel's pid, nor start a kernel.
    // A play lane knows nothing of svc, and gets no SERVICE_* variable.
    if (inOwnPidNamespace() && env.SERVICE_CONVERSATION !== undefined) env = { ...env, SERVICE_PID_NAMESPACE: '1' }
    child = startDriven(ownProcArgv([plan.command, ...plan.args], env), { cwd, env, stdin: plan.stdin !== 'none' })
  } catch (e) {
    return { error: `could not start ${plan.command}: ${(e as Error).message}` }
  }
  const failed = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined))
    child.once('error', (e) => resolve(e))
  })
  if (failed) {
    const code = (failed as NodeJS.ErrnoException).code
    return {
      error:
        code === 'ENOENT'
          ? `${plan.command}: command not found (${failed.message})`
          : `${plan.command}: ${failed.message}`,
    }
  }
  // A harness that exits while we write gets EPIPE; its exit is what matters, reported through `exited`.
  child.stdin?.on('error', () => {})
  const tail: string[] = []
  createInterface({ input: child.stdout! }).on('line', out.stdout)
  createInterface({ input: child.stderr! }).on('line', (line) => {
    tail.push(line)
    if (tail.length > STDERR_TAIL) tail.shift()
    out.stderr(line)
  })
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const exited = new Promise<HarnessExit>((resolve) =>
    child.once('exit', async (code, signal) => {
      await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS))])
      resolve({ code, signal, stderrTail: [...tail] })
    }),
  )
  if (plan.initialInput) child.stdin?.write(plan.initialInput)
  return {
    pid: child.pid!,
    write: (text) => {
      if (child.stdin?.writable) child.stdin.write(text)
    },
    closeInput: () => child.stdin?.end(),
    kill: (signal) => void child.kill(signal),
    exited,
  }
}
