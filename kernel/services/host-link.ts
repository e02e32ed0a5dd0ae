import {
  heldAfterHello,
  linkState,
  parseFromRunner,
  receive,
  reconnectDelay,
  type FromKernel,
  type HostEvent,
  type LinkState,
} from '../domain/host-stream.js'
import {
  attachCommand,
  installRunnerScript,
  readInstall,
  replaceRunnerScript,
  runnerOnHello,
  runnerVersion,
  sshOptions,
  type HostEntry,
  type ProbeAnswer,
  type SshPlaces,
} from '../domain/hosts.js'
import { hostLostEvidence, type Evidence } from '../domain/activity.js'
import type { LineStream } from '../io/hosts/stream.js'

/** What a link needs from outside: ssh (one command, and a stream), the runner's file, where the seq it holds is
 * kept, the clock and its timings. The kernel gives the real ones; a test may give its own. */
export interface HostLinkIo {
  runSsh(args: string[], opts: { timeoutMs: number; input?: string }): Promise<ProbeAnswer>
  openLineStream(args: string[], onLine: (line: string) => void, onClose: (why: string) => void): LineStream
  runnerFile(): { text: string; hash: string }
  readHeld(): number
  writeHeld(seq: number): Promise<void>
  now(): number
  log(message: string): void
  /** Before the first reconnect; doubling up to maxMs. */
  reconnectMs: { firstMs: number; maxMs: number }
  /** Silence after which the host counts as lost; the runner is asked to beat three times within it. */
  lostAfterMs: number
  /** ssh's own keep-alive, seconds (a dead link ends the connection after two unanswered). */
  aliveIntervalS?: number
  /** Told when the link's state changes (up, reconnecting, host-lost): the host's lanes read differently then. */
  onState?: (s: LinkState) => void
}

/** The kernel's end of one host's stream: it installs the host runner when its version is missing, attaches to it
 * over the host's master connection, applies each event once and in order (acknowledging it only after it is
 * applied and its seq kept), sends commands (each one the runner may receive twice without harm), and reconnects
 * after any loss, resuming after the last seq it holds. */
export class HostLink {
  private stream?: LineStream
  private connected = false
  private closed = false
  private attempts = 0
  private held: number
  private lastHeardAt: number
  private applying: Promise<void> = Promise.resolve()
  private queue: FromKernel[] = []
  private timer?: NodeJS.Timeout
  /** Checks the state as time passes (a host goes lost by staying silent, with nothing to wake the link). */
  private watch?: NodeJS.Timeout
  private shownState?: LinkState
  /** The seq a resume was last asked after, so that a gap asks once, not once per event behind it. */
  private resumedAfter?: number
  /** Why the last attempt or connection ended. */
  lastProblem?: string
  /** The version of the runner this kernel ships, and the pid of the last runner of another version it ended. */
  private want = ''
  private replacedPid?: number
  /** A runner of another version answered: nothing more of this connection is read. */
  private replacing = false

  constructor(
    readonly name: string,
    private readonly entry: HostEntry,
    private readonly places: SshPlaces,
    private readonly io: HostLinkIo,
    private readonly onEvent: (e: HostEvent) => Promise<void>,
  ) {
    this.held = io.readHeld()
    this.lastHeardAt = io.now()
  }

  get state(): LinkState {
    return this.stateAt(this.io.now())
  }

  private stateAt(now: number): LinkState {
    return linkState({
      connected: this.connected,
      lastHeardAt: this.lastHeardAt,
      now,
      lostAfterMs: this.io.lostAfterMs,
    })
  }

  /** The last seq applied. */
  get heldSeq() {
    return this.held
  }

  /** While the host counts as lost: when it was last heard from, and why its link is down when that is known. */
  lostEvidence(now = this.io.now()): Evidence | undefined {
    if (this.stateAt(now) !== 'host-lost') return undefined
    return hostLostEvidence({ host: this.name, lastHeardAt: this.lastHeardAt, now, problem: this.lastProblem })
  }

  start(): void {
    this.shownState = this.state
    if (this.io.onState) {
      this.watch = setInterval(() => this.checkState(), Math.max(50, Math.floor(this.io.lostAfterMs / 4)))
      this.watch.unref()
    }
    void this.connect()
  }

  private checkState() {
    const s = this.state
    if (s === this.shownState) return
    this.shownState = s
    this.io.onState?.(s)
  }

  send(m: FromKernel): void {
    if (this.connected && this.stream) this.stream.send(JSON.stringify(m))
    else this.queue.push(m)
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    clearInterval(this.watch)
    this.stream?.close()
  }

  private ssh = () => sshOptions(this.name, this.entry, this.places, { aliveIntervalS: this.io.aliveIntervalS })

  private async connect(): Promise<void> {
    if (this.closed) return
    const runner = this.io.runnerFile()
    const installed = readInstall(
      this.name,
      await this.io.runSsh([...this.ssh(), installRunnerScript(runner.hash)], {
        timeoutMs: 30_000,
        input: runner.text,
      }),
    )
    if (!installed.ok) return this.retry(installed.message)
    if (this.closed) return
    this.want = runnerVersion(runner.hash)
    this.replacing = false
    this.stream = this.io.openLineStream(
      [...this.ssh(), attachCommand(runner.hash)],
      (line) => this.onLine(line),
      (why) => {
        this.connected = false
        this.stream = undefined
        this.retry(why)
      },
    )
    this.resumedAfter = this.held
    const beatMs = Math.max(50, Math.floor(this.io.lostAfterMs / 3))
    this.stream.send(JSON.stringify({ t: 'resume', after: this.held, beatMs } satisfies FromKernel))
  }

  /** A runner of another version (an earlier svc's) answered: end it and attach again, which starts this version's
   * runner; it takes over the journal, so nothing is lost and nothing applied twice. */
  private async replace(pid: number, message: string) {
    const stream = this.stream
    this.replacing = true
    this.replacedPid = pid
    this.io.log(`host ${this.name}: ${message}`)
    await this.io.runSsh([...this.ssh(), replaceRunnerScript(pid)], { timeoutMs: 15_000 })
    // Only the connection to the runner ended: one made since (its end closed this one) is kept.
    stream?.close()
  }

  private retry(why: string) {
    this.lastProblem = why
    if (this.closed) return
    this.io.log(`host ${this.name}: ${why}; trying again`)
    const delay = reconnectDelay(this.attempts++, this.io.reconnectMs.firstMs, this.io.reconnectMs.maxMs)
    this.timer = setTimeout(() => void this.connect(), delay)
  }

  private onLine(line: string) {
    if (this.replacing) return
    const m = parseFromRunner(line)
    if (!m.ok) return this.io.log(`host ${this.name}: ${m.problem}`)
    this.lastHeardAt = this.io.now()
    const msg = m.value
    if (msg.t === 'hello') {
      const plan = runnerOnHello(this.want, msg, this.replacedPid)
      if (plan.act === 'replace') return void this.replace(plan.pid, plan.message)
      if (plan.warning) this.io.log(`host ${this.name}: ${plan.warning}`)
      const held = heldAfterHello(this.held, msg.acked)
      if (held !== this.held) {
        this.io.log(`host ${this.name}: its runner says events up to ${held} were acknowledged; continuing from there`)
        this.held = held
        void this.io.writeHeld(held)
      }
      this.connected = true
      this.attempts = 0
      this.lastProblem = undefined
      this.checkState()
      for (const q of this.queue.splice(0)) this.stream?.send(JSON.stringify(q))
      return
    }
    // A host heard again after a silence is up at once, not at the next look.
    if (this.shownState !== 'up') this.checkState()
    if (msg.t === 'beat') return
    const e = msg.event
    this.applying = this.applying.then(async () => {
      const r = receive(this.held, e.seq)
      if (r.apply) {
        try {
          await this.onEvent(e)
        } catch (err) {
          // Not applied: not acknowledged either; the runner keeps it and sends it again after a reconnect.
          this.io.log(`host ${this.name}: event ${e.seq} not applied: ${(err as Error).message}`)
          this.stream?.close()
          return
        }
        this.held = e.seq
        await this.io.writeHeld(e.seq)
      } else if (r.resumeAfter !== undefined) {
        if (this.resumedAfter === r.resumeAfter) return
        this.resumedAfter = r.resumeAfter
        this.stream?.send(JSON.stringify({ t: 'resume', after: r.resumeAfter } satisfies FromKernel))
        return
      }
      if (this.held > 0) this.stream?.send(JSON.stringify({ t: 'ack', seq: this.held } satisfies FromKernel))
    })
  }
}
