import { isLive } from '../domain/activity.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import type { HostReapAnswer } from '../domain/host-reap.js'
import type { HostEvent, LinkState } from '../domain/host-stream.js'
import { hostEntry, type GivenUpLane, type HostEntry, type PlacedLane } from '../domain/hosts.js'
import { onHostStart, remoteInboxScript } from '../domain/placement.js'
import type { RunnerState } from '../domain/runner-state.js'
import { convFiles, homePaths } from '../io/home.js'
import { join } from '../io/paths.js'
import type { KernelContext } from './context.js'
import { HostLink } from './host-link.js'
import { fileReportOf } from './lane-report.js'
import { onHost, places, readHosts } from './hosts.js'
import { changedPaths, holdSnapshot, homeRepoOf } from './host-snapshot.js'

/** The lanes placed on other hosts (issue 27): one link per host in use, to that host's runner. A lane is started
 * and stopped through it, and what the runner says of the lane (started, a report, exited) becomes the lane's
 * state and reports here, as a local runner's state.json and `svc lane report` would. */
export class HostLanes {
  private readonly links = new Map<string, HostLink>()
  private readonly entries = new Map<string, HostEntry>()
  /** A reap waiting for its host's answer, by lane: the next snapshot held, the worktree removed, or a refusal. */
  private readonly reapAnswers = new Map<string, { host: string; answer: (a: HostReapAnswer) => void }>()

  constructor(private readonly ctx: KernelContext) {}

  /** The link to a host, made (and started) on first use. */
  async link(host: string): Promise<HostLink> {
    const have = this.links.get(host)
    if (have) return have
    const entry = hostEntry(await readHosts(this.ctx), host)
    if (!entry) throw new SvcError('not_found', `no host ${JSON.stringify(host)} in hosts.yaml`)
    const again = this.links.get(host)
    if (again) return again
    const ctx = this.ctx
    const heldFile = join(homePaths(ctx.home).hostsDir, `${host}.held`)
    const link = new HostLink(
      host,
      entry,
      places(ctx),
      {
        runSsh: ctx.io.hosts.runSsh,
        openLineStream: ctx.io.hosts.openLineStream,
        runnerFile: ctx.io.hosts.hostRunnerFile,
        readHeld: () => {
          try {
            return Number(ctx.io.files.readTextSync(heldFile)) || 0
          } catch {
            return 0
          }
        },
        writeHeld: (seq) => ctx.io.writes.writeFileAtomic(heldFile, String(seq)),
        now: () => ctx.io.clock.now(),
        log: (m) => ctx.log('warn', m),
        reconnectMs: {
          firstMs: ctx.io.timing('HOST_RECONNECT', 500),
          maxMs: ctx.io.timing('HOST_RECONNECT_MAX', 10_000),
        },
        lostAfterMs: ctx.io.timing('HOST_LOST', 30_000),
        onState: (s) => this.stateChanged(host, s),
      },
      (e) => this.apply(host, e),
    )
    this.links.set(host, link)
    this.entries.set(host, entry)
    link.start()
    return link
  }

  /** Start a lane on its host: its brief run by the host's runner in its worktree there. */
  async start(rec: ConversationRecord, script: string, env: Record<string, string>): Promise<void> {
    const host = rec.lane!.host!
    const link = await this.link(host)
    // A --reuse: another lane of this host worked there first. Its runner refuses it if that worktree is gone or
    // being reaped, never running it in an empty directory made in its place.
    const reuse = this.ctx.store.all().some((r) => r.id !== rec.id && r.lane?.host === host && r.cwd === rec.cwd)
    link.send({ t: 'start', lane: rec.name, dir: rec.cwd, script, env, ...(reuse ? { reuse: true as const } : {}) })
  }

  /** Stop a lane on its host (its process group there), and wait up to `limitMs` for its end to arrive. */
  async stop(rec: ConversationRecord, limitMs: number): Promise<{ stopped: boolean; killed: boolean }> {
    const ended = () => {
      this.ctx.facts.invalidate(rec.name)
      const s = this.ctx.facts.get(rec.name).state
      return !s?.harness || Boolean(s.ended)
    }
    if (ended()) return { stopped: true, killed: false }
    const host = rec.lane!.host!
    const link = await this.link(host)
    link.send({ t: 'stop', lane: rec.name })
    const deadline = this.ctx.io.clock.now() + limitMs
    // A host that stops answering meanwhile sends no end: the caller learns it from lost() at once.
    while (this.ctx.io.clock.now() < deadline && !this.lost(host, this.ctx.io.clock.now())) {
      if (ended()) return { stopped: true, killed: false }
      await new Promise((r) => setTimeout(r, 50))
    }
    return { stopped: ended(), killed: false }
  }

  /** Ask a lane's host to reap it (its worktree removed only if a fresh snapshot is `held`, a commit home holds),
   * and wait up to the limit for its answer: a snapshot to hold (held at home by the time it resolves), the worktree
   * removed, or a refusal. Silence is an answer too, and so is the host going lost meanwhile (said at once, not at the
   * limit): nothing is removed that home does not hold. */
  async reap(rec: ConversationRecord, held: string | undefined): Promise<HostReapAnswer> {
    const host = rec.lane!.host!
    const link = await this.link(host)
    const limitMs = this.ctx.io.timing('HOST_REAP', 120_000)
    return new Promise<HostReapAnswer>((resolve) => {
      const timer = setTimeout(() => answer({ kind: 'silent', waitedS: Math.round(limitMs / 1000) }), limitMs)
      const answer = (a: HostReapAnswer) => {
        clearTimeout(timer)
        if (this.reapAnswers.get(rec.name)?.answer === answer) this.reapAnswers.delete(rec.name)
        resolve(a)
      }
      this.reapAnswers.set(rec.name, { host, answer })
      const lost = this.lost(host, this.ctx.io.clock.now())
      if (lost) return answer({ kind: 'lost', detail: lost.detail })
      link.send({ t: 'reap', lane: rec.name, ...(held ? { held } : {}) })
    })
  }

  /** A message told to a lane on its host: appended to its inbox there, as a shell lane's here. */
  async tell(rec: ConversationRecord, text: string): Promise<void> {
    const host = rec.lane!.host!
    const entry = hostEntry(await readHosts(this.ctx), host)
    if (!entry) throw new SvcError('not_found', `no host ${JSON.stringify(host)} in hosts.yaml`)
    const a = await onHost(this.ctx, host, entry, remoteInboxScript(rec.name), {
      input: text.endsWith('\n') ? text : text + '\n',
    })
    if (a.code !== 0)
      throw new SvcError(
        'unavailable',
        `host ${host} did not take the message for conv ${rec.id}: ` +
          `${a.stderr.trim().split('\n').at(-1) || `exit ${a.code}`}`,
        `svc host show ${host} says what it answers`,
      )
  }

  /** Whether the host of a lane answers (a lane there that has not ended is alive while it does). */
  reachable(host: string): boolean {
    return this.links.get(host)?.state !== 'host-lost'
  }

  /** The evidence that a host stopped answering (its lanes not ended show host-lost); undefined while it answers. */
  lost(host: string, now: number) {
    return this.links.get(host)?.lostEvidence(now)
  }

  /** A host lost or answering again: said once in the log, and each of its lanes reads anew (lists, the deck,
   * waits). */
  private stateChanged(host: string, s: LinkState) {
    if (s === 'host-lost') this.ctx.log('warn', `host ${host}: not answering; its lanes show host-lost until it does`)
    else if (s === 'up') this.ctx.log('info', `host ${host}: answering`)
    // A reap waiting on the host ends now: nothing more comes from it until it answers again.
    const lost = s === 'host-lost' ? this.lost(host, this.ctx.io.clock.now()) : undefined
    if (lost)
      for (const waiting of [...this.reapAnswers.values()])
        if (waiting.host === host) waiting.answer({ kind: 'lost', detail: lost.detail })
    for (const rec of this.ctx.store.all())
      if (rec.lane?.host === host && !rec.archived) {
        this.ctx.facts.invalidate(rec.name)
        this.ctx.emit({ name: rec.name, what: 'state' })
      }
  }

  /** After a kernel start: the links of every host that runs a lane not ended, or holds the worktree of one not
   * reaped, so that what happened meanwhile arrives: a report, an end, or the removal of a worktree a reap asked for
   * before the last kernel ended (recorded once it arrives, never left half done). */
  resume(): void {
    const hosts = new Set<string>()
    for (const rec of this.ctx.store.all()) {
      const host = rec.lane?.host
      if (!host || rec.archived) continue
      const s = this.ctx.facts.get(rec.name).state
      if (!s?.ended || !rec.reaped) hosts.add(host)
    }
    for (const host of hosts) this.link(host).catch((e: Error) => this.ctx.log('warn', `host ${host}: ${e.message}`))
  }

  /** The lanes placed on a host whose worktree is still there (not reaped), by name, each live or not: a host
   * that holds them stays. */
  placedOn(host: string): PlacedLane[] {
    return this.ctx.store
      .all()
      .filter((rec) => rec.lane?.host === host && !rec.reaped)
      .map((rec) => {
        const s = this.ctx.facts.get(rec.name).state
        const live = !rec.ended && !rec.archived && (s?.harness ? !s.ended : isLive(this.ctx.view(rec).activity))
        return { name: `conv-${rec.name}`, live }
      })
  }

  /** `svc host remove --forget-lanes`, for a host gone for good: each lane placed there whose worktree was not reaped
   * is given up. It reads ended (its end can no longer come) and reaped (its worktree is out of reach; whatever is at
   * that path later is not its own); every snapshot of it home holds stays where it is. What was given up, lane by
   * lane. The host's link must be forgotten first: nothing from it is applied meanwhile. */
  async giveUp(host: string): Promise<GivenUpLane[]> {
    const ctx = this.ctx
    const placed = new Map(this.placedOn(host).map((l) => [l.name, l]))
    const given: GivenUpLane[] = []
    for (const rec of ctx.store.all()) {
      const lane = placed.get(`conv-${rec.name}`)
      if (rec.lane?.host !== host || rec.reaped || !lane) continue
      const refs = `refs/svc/hosts/${host}/${rec.name}/`
      const listed = await homeRepoOf(ctx, rec)
        .then((repo) => ctx.io.git.gitTry(repo, ['for-each-ref', '--format=%(refname)', refs]))
        .catch(() => undefined)
      const held = listed?.ok ? listed.stdout.split('\n').filter(Boolean).length : 0
      const at = ctx.io.clock.now()
      const source = `host ${host} removed (--forget-lanes)`
      ctx.facts.invalidate(rec.name)
      const s = ctx.facts.get(rec.name).state
      if (s && !s.ended) {
        const { harness: _gone, ...rest } = s
        const ended = { ...rest, ended: { at, exitCode: null, signal: null, source } }
        await ctx.io.writes.writeFileAtomic(convFiles(ctx.home, rec.name).state, JSON.stringify(ended) + '\n')
      }
      await ctx.store.update(rec.id, {
        reaped: { at },
        ...(rec.ended ? {} : { ended: { at, source, detail: 'its worktree there given up' } }),
      })
      ctx.facts.invalidate(rec.name)
      ctx.emit({ name: rec.name, what: 'record' })
      given.push({ ...lane, held, refs })
    }
    return given
  }

  /** A host removed: its link ends with it. */
  forget(host: string): void {
    this.links.get(host)?.close()
    this.links.delete(host)
  }

  close(): void {
    for (const l of this.links.values()) l.close()
    this.links.clear()
  }

  /** One event of a host's runner, applied once (the link keeps the order and the count). */
  private async apply(host: string, e: HostEvent): Promise<void> {
    const ctx = this.ctx
    const rec = ctx.store.getByName(e.lane)
    if (!rec || rec.lane?.host !== host) {
      ctx.log('warn', `host ${host}: event ${e.seq} names ${e.lane}, no lane of this host; skipped`)
      return
    }
    if (e.kind === 'report') return this.report(host, rec, e)
    if (e.kind === 'snapshot' || e.kind === 'reaped' || (e.kind === 'refused' && e.reason.startsWith('reap: ')))
      return this.reapAnswer(host, rec, e)
    ctx.facts.invalidate(rec.name)
    // No state yet (the event came before any other): a runner known only by its host.
    const was = ctx.facts.get(rec.name).state ?? { runner: { pid: 1, start: onHostStart(host) } }
    const at = e.at
    let next: RunnerState
    if (e.kind === 'started') {
      const proc = { pid: e.pid, start: onHostStart(host) }
      next = {
        runner: proc,
        harness: { ...proc, at },
        phase: { value: 'working', source: `host ${host} runner`, at },
        ...(was.git ? { git: was.git } : {}),
      }
    } else if (e.kind === 'exited') {
      const { harness: _gone, ...rest } = was
      next = { ...rest, ended: { at, exitCode: e.code, signal: null, source: `host ${host} runner (${e.seen})` } }
    } else if (e.kind === 'git') next = { ...was, git: { ...e.facts, at } }
    else
      next = was.harness
        ? { ...was, lastError: { at, message: e.reason } }
        : { ...was, spawnError: { at, message: `host ${host}: ${e.reason}` } }
    await ctx.io.writes.writeFileAtomic(convFiles(ctx.home, rec.name).state, JSON.stringify(next) + '\n')
    ctx.facts.invalidate(rec.name)
    ctx.emit({ name: rec.name, what: e.kind === 'git' ? 'git' : 'state' })
  }

  /** What the host answered a reap with. A snapshot is held at home before the reap hears of it (a failure to hold
   * it throws, so the event is not acknowledged and comes again); the worktree's removal is recorded on the lane
   * whether or not a reap still waits (a kernel restarted meanwhile): its directory is gone, every byte held. */
  private async reapAnswer(
    host: string,
    rec: ConversationRecord,
    e: Extract<HostEvent, { kind: 'snapshot' | 'reaped' | 'refused' }>,
  ): Promise<void> {
    const ctx = this.ctx
    let answer: HostReapAnswer
    if (e.kind === 'snapshot') {
      const repo = await homeRepoOf(ctx, rec)
      const ref = await holdSnapshot(ctx, { host, entry: this.entries.get(host)!, dir: rec.cwd, repo, snapshot: e })
      answer = { kind: 'snapshot', commit: e.commit, ref, paths: await changedPaths(ctx, repo, e.commit) }
    } else if (e.kind === 'reaped') {
      // The worktree is gone there; this kernel has not recorded it yet (the event comes again if it ends now).
      ctx.io.fault.point('host-reaped')
      const now = ctx.store.get(rec.id)
      if (now && !now.reaped) await ctx.store.update(rec.id, { reaped: { at: e.at } })
      ctx.emit({ name: rec.name, what: 'record' })
      answer = { kind: 'reaped', commit: e.commit, ...(e.leftOut ? { leftOut: e.leftOut } : {}) }
    } else answer = { kind: 'refused', reason: e.reason }
    ctx.log(
      'info',
      `host ${host}: reap of conv-${rec.name}: ${e.kind}${e.kind === 'refused' ? ` (${e.reason})` : ` ${e.commit}`}`,
    )
    this.reapAnswers.get(rec.name)?.answer(answer)
  }

  /** A report filed on the host: checked by SPEC.md's report rules against the git state it was filed with, and
   * stored once (a report sent again has the id it was filed under). A refused one is logged and shown as the
   * lane's last error; it is not sent again. */
  private async report(host: string, rec: ConversationRecord, e: Extract<HostEvent, { kind: 'report' }>) {
    const ctx = this.ctx
    if ((await ctx.store.reports(rec.name)).some((r) => r.hostReport === e.id)) return
    // Accepted only once its bytes are held here: a failure to hold them throws, so the link does not acknowledge
    // the report and the runner sends it again.
    if (e.commit) {
      const repo = await homeRepoOf(ctx, rec)
      await holdSnapshot(ctx, { host, entry: this.entries.get(host)!, dir: rec.cwd, repo, snapshot: e })
    } else ctx.log('warn', `host ${host}: report ${e.id} of conv-${rec.name} came with no snapshot of its worktree`)
    const f = e.facts ?? {}
    try {
      await fileReportOf(
        ctx,
        rec,
        {
          body: e.body,
          status: e.status,
          ...(f.allowUnpushed ? { allowUnpushed: true } : {}),
          ...(f.verdict !== undefined ? { verdict: f.verdict } : {}),
          ...(f.defects !== undefined ? { defects: f.defects } : {}),
          ...(f.verdictText !== undefined
            ? { verdictFile: { path: f.verdictPath ?? 'verdict file', text: f.verdictText } }
            : {}),
        },
        async () => {
          if (f.git === undefined) throw new SvcError('conflict', `the report came from host ${host} without git state`)
          return ctx.io.git.parseStatus(f.git)
        },
        { hostReport: e.id },
      )
    } catch (err) {
      if (!(err instanceof SvcError)) throw err
      ctx.log('warn', `host ${host}: report ${e.id} of conv-${rec.name} refused: ${err.message}`)
      const s = ctx.facts.get(rec.name).state
      if (s)
        await ctx.io.writes.writeFileAtomic(
          convFiles(ctx.home, rec.name).state,
          JSON.stringify({ ...s, lastError: { at: e.at, message: `report refused: ${err.message}` } }) + '\n',
        )
      ctx.facts.invalidate(rec.name)
      ctx.emit({ name: rec.name, what: 'state' })
    }
  }
}
