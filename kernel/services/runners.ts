import type { ConversationRecord } from '../domain/conversation.js'
import type { LaunchSpec } from '../domain/runner-state.js'
import { KEY_VARIABLE, type RunnerProcess } from '../domain/acting-as.js'
import { hostOfStart } from '../domain/placement.js'
import { convFiles, homePaths } from '../io/home.js'
import { dirname, join } from '../io/paths.js'
import type { RunnerAnswer, RunnerRequest } from '../domain/runner-link.js'
import type { Adapters } from '../io/adapters.js'
import type { Log } from '../io/log.js'
import type { RuntimeFacts } from './runtime-facts.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Once a stopped lane's process group is gone, how long the stop waits for the runner's account of the end (its
 * state's `ended`, written when the supervisor's last word reaches the home's runner) before it answers: a stop that
 * answered first would record an end of its own (`stop`) where the runner's (`stop (SIGTERM)`) comes a moment later. */
const ACCOUNT_LIMIT_MS = 1000

/** Node reads and parses the certificates this variable names at every start, whether or not the process opens a
 * TLS connection: with a system's whole bundle, 1.1 MB of memory for as long as it runs and about 45 ms of processor
 * time. A runner opens none; the harness may, and gets the variable through its launch. */
const EXTRA_CERTIFICATES = 'NODE_EXTRA_CA_CERTS'

/** The kernel's environment for a runner, with this conversation's key and no other (the kernel may have been
 * started from inside some conversation), without the extra certificates. */
function runnerEnv(home: string, key: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SERVICE_HOME: home }
  delete env[KEY_VARIABLE]
  delete env[EXTRA_CERTIFICATES]
  if (key) env[KEY_VARIABLE] = key
  return env
}

/** The launch with the kernel's extra certificates for the harness, which its runner starts without them. */
function withCertificates(spec: LaunchSpec): LaunchSpec {
  const path = process.env[EXTRA_CERTIFICATES]
  if (!path || EXTRA_CERTIFICATES in spec.env || spec.envDrop.includes(EXTRA_CERTIFICATES)) return spec
  return { ...spec, env: { ...spec.env, [EXTRA_CERTIFICATES]: path } }
}

/** How long the home's runner gets to answer a start (it answers once the lane's supervisor runs). */
const ASK_LIMIT_MS = 30_000
/** How long a runner this kernel started gets to listen on its socket. */
const LISTEN_LIMIT_MS = 20_000

/** Starts and stops lanes here: one runner process drives every lane of the home (kernel/runner/local-runner.ts),
 * started by the kernel when none runs; each lane's harness runs under a supervisor of its own, the root of the
 * lane's process tree and the leader of its process group and session, which the kernel knows as the lane's runner. */
export class Runners {
  /** Lanes' supervisors as the runner named them, until their state says so too. */
  private spawned = new Map<string, { pid: number; start: string | undefined }>()
  /** The home's runner being started, for every start that found none. */
  private starting: Promise<void> | undefined

  constructor(
    private readonly home: string,
    private readonly svcMain: string,
    private readonly facts: RuntimeFacts,
    private readonly log: Log,
    private readonly io: Pick<Adapters, 'procs' | 'clock' | 'writes' | 'files'>,
  ) {}

  /** `key` goes to the lane in its environment only (never into launch.json, which any conversation can read);
   * the runner hands it to the harness as SERVICE_CONVERSATION_KEY. */
  async start(rec: ConversationRecord, spec: LaunchSpec, key: string | undefined): Promise<void> {
    const files = convFiles(this.home, rec.name)
    await this.io.writes.writeFileAtomic(files.launch, JSON.stringify(withCertificates(spec), null, 1) + '\n')
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(runnerEnv(this.home, key))) if (v !== undefined) env[k] = v
    const a = await this.ask({ t: 'start', name: rec.name, env })
    if ('error' in a) this.log('error', `runner of conv-${rec.name}: ${a.error}`)
    else if (a.t === 'refused') this.log('error', `runner of conv-${rec.name} refused the start: ${a.problem}`)
    else if (a.runner) this.spawned.set(rec.name, a.runner)
  }

  /** A request to the home's runner, starting one when none answers. */
  private async ask(request: RunnerRequest): Promise<RunnerAnswer | { error: string }> {
    const socket = homePaths(this.home).runnerSocket
    const deadline = this.io.clock.now() + LISTEN_LIMIT_MS
    for (;;) {
      const a = await this.io.procs.askRunner(socket, request, ASK_LIMIT_MS)
      if (a !== 'absent') return a
      if (this.io.clock.now() > deadline) return { error: `no runner listens on ${socket}` }
      this.starting ??= this.startRunner().finally(() => (this.starting = undefined))
      await this.starting
    }
  }

  /** Starts the home's runner and waits until it listens (or its time is up: the next ask says so). */
  private async startRunner(): Promise<void> {
    const { runnerSocket, runnerLog } = homePaths(this.home)
    // Left by a runner that was killed: none listens on it (the ask before found none).
    await this.io.files.unlink(runnerSocket).catch(() => {})
    // It starts from an entry of its own beside svc's (cli/runner-main.ts), which loads none of the CLI.
    const runnerMain = join(dirname(this.svcMain), 'runner-main.js')
    const spawned = this.io.procs.spawnDetached(process.execPath, [runnerMain, 'serve'], {
      cwd: this.home,
      env: runnerEnv(this.home, undefined),
      logFile: runnerLog,
      onError: (e) => this.log('error', `the runner failed to spawn: ${e.message}`),
    })
    if (!spawned) return
    const deadline = this.io.clock.now() + LISTEN_LIMIT_MS
    while (this.io.clock.now() < deadline && this.io.procs.isAlive(spawned.pid, spawned.start)) {
      if (this.io.files.exists(runnerSocket)) return
      await sleep(20)
    }
  }

  /** The process group of a conversation's runner, if it may still be there (never for a lane on a host: the pids
   * its state names are the host's). */
  private group(name: string): number | undefined {
    const s = this.facts.get(name).state
    if (s?.runner && hostOfStart(s.runner.start)) return undefined
    // A runner's pid may name another process by now (io/procs ownGroupAlive).
    return [s?.runner, this.spawned.get(name)].find((r) => r?.pid && this.io.procs.ownGroupAlive(r.pid, r.start))?.pid
  }

  harnessAlive(name: string): boolean {
    const h = this.facts.get(name).state?.harness
    // A lane's harness on a host is there until its end arrives (which removes it from the state).
    return Boolean(h && (hostOfStart(h.start) !== undefined || this.io.procs.isAlive(h.pid, h.start)))
  }

  /** Stop: SIGTERM to the runner (it stops its harness its own way), then the whole group; SIGKILL after the
   * grace period. Resolves when no process of the group is left, or after `limitMs`. */
  async stop(name: string, limitMs = 10_000): Promise<{ stopped: boolean; killed: boolean }> {
    const pgid = this.group(name)
    if (pgid === undefined) return { stopped: true, killed: false }
    this.io.procs.signalProcess(pgid, 'SIGTERM')
    const deadline = this.io.clock.now() + limitMs
    let killed = false
    while (this.io.clock.now() < deadline) {
      this.facts.invalidate(name)
      if (!this.io.procs.groupAlive(pgid)) {
        await this.untilAccounted(name, Math.min(deadline, this.io.clock.now() + ACCOUNT_LIMIT_MS))
        return { stopped: true, killed }
      }
      const waited = limitMs - (deadline - this.io.clock.now())
      if (waited > 1000) this.io.procs.signalGroup(pgid, 'SIGTERM')
      if (waited > Math.min(7000, limitMs - 1000) && !killed) {
        // What the runner adopted first (a lane process in a session of its own): killed after it, it would go to
        // init and call as the person.
        await this.io.procs.endDescendants(pgid, 1000)
        this.io.procs.signalGroup(pgid, 'SIGKILL')
        killed = true
        this.log('warn', `conv-${name}: process group ${pgid} ignored SIGTERM; sent SIGKILL`)
      }
      await sleep(50)
    }
    this.facts.invalidate(name)
    return { stopped: !this.io.procs.groupAlive(pgid), killed }
  }

  /** Until the runner that wrote this lane's state has written its end too, or `until`. */
  private async untilAccounted(name: string, until: number): Promise<void> {
    for (;;) {
      this.facts.invalidate(name)
      const s = this.facts.get(name).state
      if (!s?.runner || s.ended || this.io.clock.now() >= until) return
      await sleep(20)
    }
  }

  /** The runners of these conversations that run now as one of the `pids`: the roots of the process trees the
   * kernel started. Only those few are checked in /proc, however many conversations there are. */
  processes(names: readonly string[], pids: ReadonlySet<number>): RunnerProcess[] {
    const out: RunnerProcess[] = []
    for (const conv of names) {
      const r = this.facts.get(conv).state?.runner
      if (r?.pid && pids.has(r.pid)) {
        if (this.io.procs.isAlive(r.pid, r.start)) out.push({ conv, pid: r.pid, start: r.start })
        // Killed before it wrote its end: its group or session may hold what its lane left running.
        else if (!hostOfStart(r.start) && !this.facts.get(conv).state?.ended && !this.io.procs.pidInUse(r.pid))
          out.push({ conv, pid: r.pid, start: r.start, gone: true })
        continue
      }
      const spawned = this.spawned.get(conv)
      if (spawned && pids.has(spawned.pid) && this.io.procs.ownGroupAlive(spawned.pid, spawned.start))
        out.push({ conv, pid: spawned.pid })
    }
    return out
  }

  runnerAlive(name: string): boolean {
    return this.group(name) !== undefined
  }
}
