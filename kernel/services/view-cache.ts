import type { KernelContext } from './context.js'
import type { GitFactsCache, GitFactsReader } from './git-facts.js'

/** Answers computed from the store are reused while nothing has changed and they are younger than `maxAgeMs` (a
 * process dying or time passing shows within that). Nothing changed: no event since, no worktree the watcher told
 * of (`moves`), and each worktree the answer read still holds its stamp, checked at every reuse (services/git-facts),
 * so a commit the watcher has not reported yet is shown all the same. */
export class ViewCache<T> {
  private entries = new Map<string, { seen: string; at: number; read: Set<string>; value: Promise<T> }>()
  constructor(
    private readonly ctx: KernelContext,
    private readonly maxAgeMs: number,
    private readonly facts: Pick<GitFactsCache, 'many' | 'moves' | 'holds'>,
    private readonly maxEntries = 64,
  ) {}

  get(key: string, compute: (facts: GitFactsReader) => Promise<T>): Promise<T> {
    const now = this.ctx.io.clock.now()
    const seen = `${this.ctx.changeCount}:${this.facts.moves}`
    const e = this.entries.get(key)
    if (e && e.seen === seen && now - e.at < this.maxAgeMs && this.facts.holds(e.read)) return e.value
    const read = new Set<string>()
    const value = compute({
      many: (dirs, at) => {
        for (const dir of dirs) read.add(dir)
        return this.facts.many(dirs, at)
      },
    })
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, { seen, at: now, read, value })
    value.catch(() => this.entries.delete(key))
    return value
  }
}
