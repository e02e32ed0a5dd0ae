import { EventEmitter } from '../io/events.js'
import { callerSet, conversationFound, type ConversationRecord } from '../domain/conversation.js'
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
import { mayActAs } from '../domain/acting-as.js'
import { hashConversationKey } from './conversation-key.js'
import { decided } from './decided.js'

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

  /** The calling conversation ($SERVICE_CONVERSATION), required; `fix` is the hint of the refusal when it is unset. */
  caller(ref: string | undefined, what: string, fix = `${what} must run inside a conversation`): ConversationRecord {
    return this.resolve(decided(callerSet(ref, fix)).ref)
  }

  /** Refuses a request that acts as `rec` (none: as no one) unless its key allows it (domain/acting-as). */
  checkActingAs(rec: ConversationRecord | undefined, key: string | undefined, what: string): void {
    let keyOf: string | null | undefined
    if (key !== undefined) {
      const hash = hashConversationKey(this.io.ids, key)
      keyOf = rec?.keyHash === hash ? rec.id : (this.store.all().find((r) => r.keyHash === hash)?.id ?? null)
    }
    decided(mayActAs({ what, named: rec && { id: rec.id, hasKey: rec.keyHash !== undefined }, keyOf }))
  }

  view(rec: ConversationRecord, now = this.io.clock.now()) {
    return convView(rec, this.facts.get(rec.name), now, this.io.procs.isAlive)
  }

  /** Counts changes: anything computed at one count is still right at the same count. */
  changeCount = 0

  emit(e: KernelEvent) {
    this.changeCount++
    this.events.emit('change', e)
  }
}

export { shortLine }
