import { EventEmitter } from '../io/events.js'
import { callerSet, conversationFound, mayHoldProcesses, type ConversationRecord } from '../domain/conversation.js'
import { laneOf, type LaneRecord } from '../domain/lane.js'
import { shortLine } from '../domain/errors.js'
import { convRefParsed } from '../domain/keys.js'
import type { Adapters } from '../io/adapters.js'
import type { ConfigFile } from '../io/config.js'
import type { Log } from '../io/log.js'
import type { Store } from '../io/store.js'
import type { Runners } from './runners.js'
import type { RuntimeFacts } from './runtime-facts.js'
import { convView } from './conv-view.js'
import { callerGone, mayActAs, treeOf } from '../domain/acting-as.js'
import { mayAdminister, mayCommand, PERSON, type Caller } from '../domain/authority.js'
import { hashConversationKey } from './conversation-key.js'
import { decided } from './decided.js'
import { HostLanes } from './host-lanes.js'
import { hostOfStart } from '../domain/placement.js'

export interface KernelEvent {
  name: string
  /** `git`: the git facts of the lane's worktree changed (services/git-facts). */
  what: 'state' | 'report' | 'record' | 'transcript' | 'git'
  /** Seen by the file watcher (rather than announced by the kernel's own write). */
  fromWatcher?: boolean
}

/** What every kernel service stands on. */
export class KernelContext {
  readonly events = new EventEmitter()
  /** Lanes placed on other hosts, and the links to those hosts' runners. */
  readonly hostLanes: HostLanes = new HostLanes(this)
  constructor(
    readonly home: string,
    readonly store: Store,
    readonly facts: RuntimeFacts,
    readonly runners: Runners,
    readonly config: ConfigFile,
    readonly log: Log,
    readonly svcBinDir: string,
    readonly version: string,
    /** Files, git, processes, the clock, ids and the test hooks: everything outside the kernel a service reaches. */
    readonly io: Adapters,
  ) {
    this.events.setMaxListeners(0)
  }

  /** Find a conversation by id, name or conv-<name>; one clear error otherwise. */
  resolve(ref: string): ConversationRecord {
    const { parsed } = decided(convRefParsed(ref))
    return decided(
      conversationFound(
        ref,
        parsed.by === 'id' ? this.store.get(parsed.id) : parsed.names.map((n) => this.store.getByName(n)).find(Boolean),
      ),
    ).rec
  }

  /** Find a lane by id, name or conv-<name>; a conversation that is not a lane is refused. */
  resolveLane(ref: string): LaneRecord {
    return decided(laneOf(this.resolve(ref))).rec
  }

  /** The calling conversation ($SERVICE_CONVERSATION, else the one whose process tree calls), required; `fix` is the
   * hint of the refusal when it is unset. */
  async caller(
    ref: string | undefined,
    what: string,
    fix = `${what} must run inside a conversation`,
  ): Promise<ConversationRecord> {
    return this.resolve(decided(callerSet(ref ?? (await this.callerTree())?.id, fix)).ref)
  }

  /** The conversation whose process tree the calling process of the current request belongs to, found from its
   * connection (domain/acting-as treeOf); none for a person's shell, the deck, or a call from within the kernel. */
  async callerTree(): Promise<ConversationRecord | undefined> {
    const lineage = await this.io.peers.lineage()
    if (lineage === null) {
      const refusal = callerGone()
      this.log('warn', `${refusal.ok ? '' : refusal.message}: a request was not heard`)
      decided(refusal)
      return undefined
    }
    if (!lineage.length) return undefined
    const driven = this.store.all().filter(mayHoldProcesses)
    const pids = new Set(lineage.flatMap((p) => [p.pid, p.pgid, p.sid]))
    const name = treeOf(
      lineage,
      this.runners.processes(
        driven.map((r) => r.name),
        pids,
      ),
    )
    return name === undefined ? undefined : this.store.getByName(name)
  }

  /** Who the current request comes from, as the kernel verified it: a conversation's process tree, else the person. */
  async verifiedCaller(): Promise<Caller> {
    const tree = await this.callerTree()
    return tree ? { kind: 'conversation', id: tree.id } : PERSON
  }

  /** The conversation a request acts as: the one it names ($SERVICE_CONVERSATION), else the one whose process tree
   * it comes from; refused unless the caller may act as it (domain/acting-as). Undefined: it acts as the person. */
  async actingAs(
    ref: string | undefined,
    key: string | undefined,
    what: string,
  ): Promise<ConversationRecord | undefined> {
    const tree = await this.callerTree()
    const rec = ref === undefined ? tree : this.resolve(ref)
    await this.checkActingAs(rec, key, what, tree)
    return rec
  }

  /** Refuses a request that acts as `rec` (none: as no one) unless the process tree it comes from and its key allow
   * it (domain/acting-as). */
  async checkActingAs(
    rec: ConversationRecord | undefined,
    key: string | undefined,
    what: string,
    tree?: ConversationRecord,
  ): Promise<void> {
    tree ??= await this.callerTree()
    let keyOf: string | null | undefined
    if (key !== undefined) {
      const hash = hashConversationKey(this.io.ids, key)
      keyOf = rec?.keyHash === hash ? rec.id : (this.store.all().find((r) => r.keyHash === hash)?.id ?? null)
    }
    const named = rec && {
      id: rec.id,
      hasKey: rec.keyHash !== undefined,
      treeAlive: rec.keyHash !== undefined && this.runners.runnerAlive(rec.name),
    }
    decided(mayActAs({ what, named, keyOf, tree: tree?.id }))
  }

  /** Refuses a stop, reap, tell or answer of `target` unless the verified caller is the person or in its launcher
   * chain (domain/authority). */
  async checkCommand(target: ConversationRecord, what: string, caller?: Caller): Promise<void> {
    caller ??= await this.verifiedCaller()
    decided(mayCommand({ what, target: target.id, caller, lookup: (id) => this.store.get(id) }))
  }

  /** Refuses a change to the service itself (the kernel, its hosts) unless the verified caller is the person or a
   * root conversation (domain/authority). */
  async checkAdminister(what: string, caller?: Caller): Promise<void> {
    caller ??= await this.verifiedCaller()
    decided(mayAdminister({ what, caller, lookup: (id) => this.store.get(id) }))
  }

  view(rec: ConversationRecord, now = this.io.clock.now()) {
    return convView(rec, this.facts.get(rec.name), now, this.isAlive, this.hostLost)
  }

  /** A process here, checked by pid and start time; a lane's harness on a host is alive until its end arrives, while
   * its host answers. */
  readonly isAlive = (pid: number | undefined, start: string | undefined): boolean => {
    const host = start === undefined ? undefined : hostOfStart(start)
    return host ? this.hostLanes.reachable(host) : this.io.procs.isAlive(pid, start)
  }

  /** Issue 27: a host that stopped answering, with its evidence (its lanes show host-lost). */
  readonly hostLost = (host: string, now: number) => this.hostLanes.lost(host, now)

  /** Counts changes: anything computed at one count is still right at the same count. */
  changeCount = 0

  emit(e: KernelEvent) {
    this.changeCount++
    this.events.emit('change', e)
  }
}

export { shortLine }
