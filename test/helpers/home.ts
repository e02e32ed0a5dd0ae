import { spawn, execFileSync } from 'node:child_process'
import { rmSync, readdirSync, readFileSync, readlinkSync, existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { kernelTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { ownGroupAlive, procStat } from '../../kernel/io/procs.js'
import { portClient, rpcCall } from '../../kernel/port/client.js'
import type { KernelPort } from '../../kernel/port/port.js'
import { checkedCall } from './checked-port.js'
import { makeServiceHome, serviceEnv, uniqueDir } from '../../fixtures/service-home.js'
import type { OtherUser } from './other-user.js'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const SVC_MAIN = join(ROOT, 'dist', 'cli', 'main.js')

/** Where test homes live: under the user's home (a lanes root may not lie under /tmp). */
export const TEST_HOMES = join(homedir(), '.svc-test-homes')

/** A scratch directory's path for one suite, under TEST_HOMES. */
export const scratchDir = (label: string) => uniqueDir(TEST_HOMES, label)

/** A loopback port where a connection is refused: below 1024, so never handed out for a listen on port 0 or an
 * outgoing connection, and no test listens there. A port freed by a test's own server is no such port: any process
 * of the machine listening on port 0 (another suite's kernel, say) may be given it meanwhile, and then it answers. */
export const REFUSED_PORT = 1

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p
  } catch (e) {
    return e as Error
  }
  throw new Error('expected a rejection')
}

export interface Result {
  code: number
  stdout: string
  stderr: string
}

/** A throwaway HOME (and SERVICE_HOME inside it) with the built `svc`; stop() ends every kernel and runner it
 * started and removes the directory. */
export class TestHome {
  readonly dir: string
  readonly home: string
  readonly service: string
  extraEnv: Record<string, string> = {}
  /** svc() runs the CLI's dispatch in this process unless a call says `here: false`: for a suite whose calls are the
   * person's (from no lane's process tree, as a child `svc` is too) and need no process of their own (no signal, no
   * deadline, no command line to find). */
  inProcess = false
  /** The user (not root) whose `svc` and kernel this home's are, if not this process's. */
  readonly user: OtherUser | undefined

  constructor(label = 't', opts: { user?: OtherUser } = {}) {
    const root = opts.user ? join(opts.user.home, '.svc-test-homes') : TEST_HOMES
    ;({ dir: this.dir, home: this.home, service: this.service } = makeServiceHome(root, label))
    this.user = opts.user
    if (this.user) this.extraEnv = { USER: this.user.name, LOGNAME: this.user.name }
    this.own()
  }

  /** Hands what this process wrote in the home to its user (where it has one). */
  own(): void {
    if (this.user) execFileSync('chown', ['-R', `${this.user.uid}:${this.user.gid}`, join(this.dir, '..')])
  }

  env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    const env = serviceEnv(this.home, this.service, this.extraEnv)
    for (const [k, v] of Object.entries(extra)) {
      if (v === undefined) delete env[k]
      else env[k] = v
    }
    return env
  }

  /** Run the built `svc` with these arguments; with `here`, in this process: the CLI's own dispatch with its output
   * captured, over HTTP to this home's kernel (what a process of its own prints, without the cost of starting one). */
  async svc(
    args: string[],
    opts: {
      env?: Record<string, string | undefined>
      input?: string
      cwd?: string
      timeoutMs?: number
      here?: boolean
    } = {},
  ): Promise<Result> {
    // A home of another user never runs the CLI as this process's user.
    if ((opts.here ?? this.inProcess) && !this.user) {
      const { dispatchCaptured } = await import('../../cli/dispatch.js')
      return dispatchCaptured(args, { env: this.env(opts.env), cwd: opts.cwd ?? this.home, input: opts.input })
    }
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [SVC_MAIN, ...args], {
        env: this.env(opts.env),
        cwd: opts.cwd ?? this.home,
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(this.user && { uid: this.user.uid, gid: this.user.gid }),
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000)
      child.on('close', (code) => {
        clearTimeout(timer)
        resolve({ code: code ?? -1, stdout, stderr })
      })
      // A command that exits before reading its input (a refusal) closes the pipe: that is no test failure.
      child.stdin.on('error', () => {})
      child.stdin.end(opts.input ?? '')
    })
  }

  /** Like svc(), but a non-zero exit fails with the output. */
  async ok(args: string[], opts: Parameters<TestHome['svc']>[1] = {}): Promise<string> {
    const r = await this.svc(args, opts)
    if (r.code !== 0)
      throw new Error(`svc ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`)
    return r.stdout
  }

  /** The kernel's port over HTTP, the kernel started as `svc` starts it when none runs: for what a test reads to
   * check or to wait on, where the CLI is not what is tested (a CLI call costs a Node start, a poll many). A kernel
   * it starts has the home's environment with `env`, as one `svc` would start. */
  async port(env: Record<string, string | undefined> = {}): Promise<KernelPort> {
    // A home of another user gets its kernel started as that user, by its own `svc`.
    if (this.user) await this.ok(['kernel', 'start'], { env })
    // Every answer it gives is checked against the port's output schemas (kernel/port/outputs.ts).
    return kernelTransport({ ...processIo(), env: this.env(env) }, false).then((t) =>
      portClient(checkedCall(rpcCall(t))),
    )
  }

  /** What the kernel has logged so far. */
  kernelLog(): string {
    return readFileSync(join(this.service, 'kernel.log'), 'utf8')
  }

  /** The reports stored for conversation `name`, as the kernel wrote them (its reports.json), read as they are. */
  reports(name: string): any[] {
    return JSON.parse(readFileSync(join(this.service, 'agents', `conv-${name}`, 'reports.json'), 'utf8')).reports
  }

  kernelFile(): { pid: number; port: number; token: string } | undefined {
    try {
      return JSON.parse(readFileSync(join(this.service, 'kernel.json'), 'utf8'))
    } catch {
      return undefined
    }
  }

  /** Kill every process group of a runner this home started, stop the kernel, remove the directory. */
  async stop(): Promise<void> {
    const k = this.kernelFile()
    if (k) {
      try {
        process.kill(k.pid, 'SIGTERM')
      } catch {}
    }
    killRunners(this.service)
    for (let i = 0; i < 40 && k && alive(k.pid); i++) await new Promise((r) => setTimeout(r, 25))
    if (k && alive(k.pid)) process.kill(k.pid, 'SIGKILL')
    // Anything else still running for this home (a kernel that lost a start race, a stray harness) goes too.
    for (const pid of processesOfHome(this.service)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
    }
    for (let i = 0; ; i++) {
      try {
        rmSync(this.dir, { recursive: true, force: true })
        break
      } catch (e) {
        if (i >= 20) throw e
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return procStat(pid)?.state !== 'Z'
  } catch {
    return false
  }
}

/** Processes whose environment names this service home. */
export function processesOfHome(service: string): number[] {
  const out: number[] = []
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue
    try {
      if (readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`SERVICE_HOME=${service}`))
        out.push(Number(p))
    } catch {}
  }
  return out
}

/** Is a process of this home whose command line holds `args` (an `svc lane wait …` call, say) connected to the
 * kernel's port on 127.0.0.1? What a test waits for before it kills the kernel under a wait, or files the report a
 * wait is for, in place of a sleep that a slow start under load would outrun. */
export function connectedToKernel(service: string, port: number, args: string): boolean {
  const sockets = new Set<string>()
  for (const pid of processesOfHome(service))
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(args)) continue
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
        if (inode) sockets.add(inode)
      }
    } catch {} // the process ended meanwhile
  const kernel = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`
  // /proc/net/tcp columns: sl, local, remote, state (01: established), ..., inode (the tenth).
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .some((c) => c[2] === kernel && c[3] === '01' && sockets.has(c[9]))
}

/** Process groups a launch could have made for this home: a lane's supervisor is spawned as its own group, and its
 * harness runs in it. Left out are the kernel's group (the kernel and the short-lived git and lsof children it runs
 * at any time), the home's runner's (started with a first lane, gone once it has had none for a moment) and this
 * test process's group (the `svc` calls it makes), whose members come and go without any launch. */
export function launchGroupsOfHome(service: string, kernelPid: number | undefined): number[] {
  const others = new Set([procStat(process.pid)?.pgid, kernelPid === undefined ? undefined : procStat(kernelPid)?.pgid])
  const groups = new Set<number>()
  for (const pid of processesOfHome(service)) {
    const pgid = procStat(pid)?.pgid
    if (pgid === undefined || others.has(pgid)) continue
    if (isHomeRunner(pid)) others.add(pgid)
    else groups.add(pgid)
  }
  for (const pgid of others) groups.delete(pgid!)
  return [...groups].sort((a, b) => a - b)
}

/** Whether a process is a home's runner (`svc runner serve`, or the runner's own entry as the kernel starts it). */
function isHomeRunner(pid: number): boolean {
  try {
    return /(\0runner|runner-main\.js)\0serve\0$/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
  } catch {
    return false
  }
}

export function killRunners(service: string) {
  const agents = join(service, 'agents')
  if (!existsSync(agents)) return
  for (const d of readdirSync(agents)) {
    try {
      const s = JSON.parse(readFileSync(join(agents, d, 'state.json'), 'utf8'))
      // A runner that ended long ago may have its pid reused by now, by a group of another test.
      if (s.runner?.pid && ownGroupAlive(s.runner.pid, s.runner.start)) process.kill(-s.runner.pid, 'SIGKILL')
    } catch {}
  }
}

/** Poll until fn returns a truthy value (or throw with the last value after the limit). */
export async function until<T>(fn: () => T | Promise<T>, what: string, limitMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + limitMs
  let last: T | undefined
  while (Date.now() < deadline) {
    last = await fn()
    if (last) return last
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`)
}

/** Wait until a script has written its line to `path` (`echo … > path` makes the file before it writes the line):
 * its text, once it ends with a newline. */
export const written = (path: string, what = path, limitMs = 15_000) =>
  until(
    () => {
      try {
        const text = readFileSync(path, 'utf8')
        return text.endsWith('\n') && text
      } catch {
        return false
      }
    },
    what,
    limitMs,
  )

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  }).trim()

/** The pids of a user's live processes (from /proc, by owner). */
export const pidsOfUser = (uid: number): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return statSync(`/proc/${d}`).uid === uid
      } catch {
        return false
      }
    })
    .map(Number)
