import { sameGitFacts } from '../domain/git-facts.js'
import type { SavedWorktree } from '../domain/saved-git-facts.js'
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
/** Of those, the background reads after a start take at most two: a request's own reads never wait behind them,
 * and on two cores the kernel keeps most of the machine for its answers meanwhile. */
const WARM_AT_ONCE = 2
/** Facts read are saved for the next kernel once no read has come for this long (and when the kernel stops). */
const SAVE_AFTER_MS = 2000

/** A worktree's facts, and when they were read. */
export type GitFactsNow = git.GitFacts & { asOf: number }

interface Entry {
  facts: git.GitFacts
  stamp: string
  at: number
  /** Something in the worktree moved since these facts were read. */
  stale: boolean
  /** Saved by the last kernel: shown while the stamp holds, until this kernel has read the worktree itself. */
  saved?: true
}

/** What an answer reads worktrees' facts through (a view cache notes which worktrees it read). */
export type GitFactsReader = Pick<GitFactsCache, 'many'>

/** Where the facts outlive the kernel: what the last one saved, and saving this one's. */
export interface SavedFactsFile {
  load(): SavedWorktree[]
  save(worktrees: SavedWorktree[]): Promise<void>
}

interface Watching {
  /** Starts the watcher; `onChange` is called with a worktree's directory when something in it moves. */
  watch: (onChange: (dir: string) => void) => WorktreeWatcher
  /** Facts of a worktree that changed (not the first read): its lanes' rows are news. */
  changed: (dir: string) => void
  /** The quiet time before a changed worktree is read again (GIT_SETTLE_MS unless a test sets it). */
  settleMs?: number
  saved?: SavedFactsFile
}

/** Git facts of lane worktrees. With a watcher, a worktree's facts are read once and then only when it changes:
 * its files or its git files move (the watcher), or its lane reports or changes state (touch); a request never
 * reads a worktree that did not change, and reads only the worktrees it shows. Each answer still checks the cheap
 * stamp of HEAD, the index and the top directory, so a lost event cannot hide a commit. The facts a kernel read
 * are saved for the next one: after a restart each worktree is shown at once from them while its stamp holds, and
 * read again in the background (warm); facts that turn out to have changed are news like any other change. */
export class GitFactsCache {
  private entries = new Map<string, Entry>()
  private gitDirs = new Map<string, string | undefined>()
  private timers = new Map<string, ReturnType<typeof setTimeout>>()
  /** The read under way for each worktree, with the stamp it began at (none while it waits for its turn). */
  private reading = new Map<string, { done: Promise<GitFactsNow | undefined>; stamp?: string }>()
  private watcher: WorktreeWatcher | undefined
  private saving: ReturnType<typeof setTimeout> | undefined
  /** How many times a worktree was told to have moved: an answer made before a move is not reused after it. */
  moves = 0
  constructor(
    private readonly io: Pick<Adapters, 'files' | 'git' | 'clock'>,
    private readonly watching?: Watching,
  ) {
    this.watcher = watching?.watch((dir) => this.touch(dir))
    for (const w of watching?.saved?.load() ?? [])
      this.entries.set(w.dir, { facts: w.facts, stamp: w.stamp, at: w.at, stale: false, saved: true })
  }

  /** Read each worktree not yet read by this kernel (those never read, and those known only from the saved facts),
   * a few at a time, skipping any a request reads meanwhile. */
  async warm(dirs: string[]): Promise<void> {
    const queue = [...new Set(dirs)]
    const next = async () => {
      for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
        const e = this.entries.get(dir)
        if (!e || e.saved) await this.fresh(dir)
      }
    }
    await Promise.all(Array.from({ length: WARM_AT_ONCE }, next))
  }

  async many(dirs: string[], now = this.io.clock.now()): Promise<Map<string, GitFactsNow | undefined>> {
    const out = new Map<string, GitFactsNow | undefined>()
    const todo: string[] = []
    for (const dir of new Set(dirs)) {
      const e = this.entries.get(dir)
      if (e && this.current(dir, e, now)) out.set(dir, { ...e.facts, asOf: e.at })
      else todo.push(dir)
    }
    await Promise.all(todo.map(async (dir) => void out.set(dir, await this.fresh(dir))))
    return out
  }

  /** Whether an answer made from these worktrees' facts still holds: each one read is not known to have moved and
   * its stamp is unchanged (checked now: a commit the watcher has not reported yet counts), each one not read is
   * still absent. */
  holds(dirs: Iterable<string>): boolean {
    for (const dir of dirs) {
      const e = this.entries.get(dir)
      if (e ? this.moved(dir, e) : this.io.files.exists(dir)) return false
    }
    return true
  }

  private current(dir: string, e: Entry, now: number): boolean {
    if (this.moved(dir, e)) return false
    return this.watcher ? true : now - e.at < GIT_FACTS_TTL_MS
  }

  /** The worktree moved since these facts were read: the watcher said so, or its stamp is not the one read with
   * them. */
  private moved(dir: string, e: Entry): boolean {
    return e.stale || e.stamp !== this.stamp(dir)
  }

  private stamp(dir: string): string {
    if (!this.gitDirs.has(dir)) this.gitDirs.set(dir, this.io.git.worktreeGitDir(dir))
    return this.io.git.worktreeStamp(dir, this.gitDirs.get(dir))
  }

  /** Read a worktree's facts now (one read at a time per worktree: callers asking meanwhile share it, unless the
   * worktree moved since it began: such a read may have missed the move, so they read again once it is done). */
  fresh(dir: string, again = true): Promise<GitFactsNow | undefined> {
    const running = this.reading.get(dir)
    if (running) {
      if (!again || running.stamp === undefined || running.stamp === this.stamp(dir)) return running.done
      return running.done.then(() => this.fresh(dir, false))
    }
    const read: { done: Promise<GitFactsNow | undefined>; stamp?: string } = { done: Promise.resolve(undefined) }
    read.done = reads
      .run(() => this.read(dir, read))
      .finally(() => {
        if (this.reading.get(dir) === read) this.reading.delete(dir)
      })
    this.reading.set(dir, read)
    return read.done
  }

  private async read(dir: string, running: { stamp?: string }): Promise<GitFactsNow | undefined> {
    if (!this.io.files.exists(dir)) {
      this.forget(dir)
      return undefined
    }
    this.gitDirs.delete(dir)
    const stamp = this.stamp(dir)
    running.stamp = stamp
    this.watcher?.add(dir, this.gitDirs.get(dir))
    const at = this.io.clock.now()
    const before = this.entries.get(dir)
    // Marked fresh before the read: a change during the read marks it stale again.
    if (before) before.stale = false
    try {
      const facts = await this.io.git.statusFacts(dir)
      const stale = this.entries.get(dir)?.stale ?? false
      this.entries.set(dir, { facts, stamp, at, stale })
      if (before && !sameGitFacts(before.facts, facts)) this.watching?.changed(dir)
      this.saveSoon()
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
    this.moves++
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

  private saveSoon() {
    if (!this.watching?.saved) return
    clearTimeout(this.saving)
    this.saving = setTimeout(() => void this.save().catch(() => {}), SAVE_AFTER_MS)
    this.saving.unref?.()
  }

  /** Save the facts for the next kernel: those of worktrees that did not move since they were read. */
  private save(): Promise<void> {
    clearTimeout(this.saving)
    this.saving = undefined
    const worktrees = [...this.entries]
      .filter(([, e]) => !e.stale)
      .map(([dir, e]) => ({ dir, facts: e.facts, stamp: e.stamp, at: e.at }))
    return this.watching?.saved?.save(worktrees) ?? Promise.resolve()
  }

  async close(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
    await this.save().catch(() => {})
    await this.watcher?.close()
  }
}
