import type { Adapters } from '../io/adapters.js'
import type * as git from '../io/git.js'
import type { WorktreeWatcher } from '../io/watch.js'
import { Limiter } from '../queue/serial.js'

/** Without a watcher (a test's adapters), a worktree's facts are reused while its fingerprint is unchanged and they
 * are younger than this; an edit deeper in the tree shows within this time. */
const GIT_FACTS_TTL_MS = 2000
/** A watched worktree that changed is read again once it has been quiet this long: a burst of writes (a checkout, a
 * build) costs one read. */
export const GIT_SETTLE_MS = 150
/** Worktrees read at most eight at a time. */
const reads = new Limiter(8)

type Facts = git.GitFacts & { asOf: number }

interface Entry {
  facts: git.GitFacts
  stamp: string
  at: number
  /** Something in the worktree moved since these facts were read. */
  stale: boolean
}

interface Watching {
  /** Starts the watcher; `onChange` is called with a worktree's directory when something in it moves. */
  watch: (onChange: (dir: string) => void) => WorktreeWatcher
  /** Facts of a worktree that changed (not the first read): its lanes' rows are news. */
  changed: (dir: string) => void
  /** The quiet time before a changed worktree is read again (GIT_SETTLE_MS unless a test sets it). */
  settleMs?: number
}

/** Git facts of lane worktrees. With a watcher, a worktree's facts are read once and then only when it changes:
 * its files or its git files move (the watcher), or its lane reports or changes state (touch); a request never
 * reads a worktree that did not change, and reads only the worktrees it shows. Each answer still checks the cheap
 * stamp of HEAD, the index and the top directory, so a lost event cannot hide a commit. */
export class GitFactsCache {
  private entries = new Map<string, Entry>()
  private gitDirs = new Map<string, string | undefined>()
  private timers = new Map<string, ReturnType<typeof setTimeout>>()
  private reading = new Map<string, Promise<Facts | undefined>>()
  private watcher: WorktreeWatcher | undefined
  constructor(
    private readonly io: Pick<Adapters, 'files' | 'git' | 'clock'>,
    private readonly watching?: Watching,
  ) {
    this.watcher = watching?.watch((dir) => this.touch(dir))
  }

  async many(dirs: string[], now = this.io.clock.now()): Promise<Map<string, Facts | undefined>> {
    const out = new Map<string, Facts | undefined>()
    const todo: string[] = []
    for (const dir of new Set(dirs)) {
      const e = this.entries.get(dir)
      if (e && this.current(dir, e, now)) out.set(dir, { ...e.facts, asOf: e.at })
      else todo.push(dir)
    }
    await Promise.all(todo.map(async (dir) => void out.set(dir, await this.fresh(dir))))
    return out
  }

  private current(dir: string, e: Entry, now: number): boolean {
    if (e.stale || e.stamp !== this.stamp(dir)) return false
    return this.watcher ? true : now - e.at < GIT_FACTS_TTL_MS
  }

  private stamp(dir: string): string {
    if (!this.gitDirs.has(dir)) this.gitDirs.set(dir, this.io.git.worktreeGitDir(dir))
    return this.io.git.worktreeStamp(dir, this.gitDirs.get(dir))
  }

  /** Read a worktree's facts now (one read at a time per worktree: callers asking meanwhile share it). */
  fresh(dir: string): Promise<Facts | undefined> {
    const running = this.reading.get(dir)
    if (running) return running
    const p = reads.run(() => this.read(dir)).finally(() => this.reading.delete(dir))
    this.reading.set(dir, p)
    return p
  }

  private async read(dir: string): Promise<Facts | undefined> {
    if (!this.io.files.exists(dir)) {
      this.forget(dir)
      return undefined
    }
    this.gitDirs.delete(dir)
    const stamp = this.stamp(dir)
    this.watcher?.add(dir, this.gitDirs.get(dir))
    const at = this.io.clock.now()
    const before = this.entries.get(dir)
    // Marked fresh before the read: a change during the read marks it stale again.
    if (before) before.stale = false
    try {
      const facts = await this.io.git.statusFacts(dir)
      const stale = this.entries.get(dir)?.stale ?? false
      this.entries.set(dir, { facts, stamp, at, stale })
      if (before && !sameFacts(before.facts, facts)) this.watching?.changed(dir)
      return { ...facts, asOf: at }
    } catch {
      return undefined
    }
  }

  /** Something in the worktree moved (a file, HEAD, the index), or its lane reported or changed state: its facts
   * are read again at the next request, and, once the worktree is quiet, at once (so a change is news even when no
   * one asks). A worktree never read is left alone. */
  touch(dir: string): void {
    const e = this.entries.get(dir)
    if (!e) return
    e.stale = true
    if (!this.watching) return
    clearTimeout(this.timers.get(dir))
    this.timers.set(
      dir,
      setTimeout(() => {
        this.timers.delete(dir)
        if (this.entries.get(dir)?.stale) void this.fresh(dir)
      }, this.watching.settleMs ?? GIT_SETTLE_MS),
    )
  }

  forget(dir: string) {
    this.entries.delete(dir)
    this.gitDirs.delete(dir)
    clearTimeout(this.timers.get(dir))
    this.timers.delete(dir)
    this.watcher?.remove(dir)
  }

  close(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
    return this.watcher?.close() ?? Promise.resolve()
  }
}

const sameFacts = (a: git.GitFacts, b: git.GitFacts) =>
  a.branch === b.branch &&
  a.head === b.head &&
  a.upstream === b.upstream &&
  a.ahead === b.ahead &&
  a.behind === b.behind &&
  a.dirty === b.dirty &&
  a.dirtyPaths === b.dirtyPaths
