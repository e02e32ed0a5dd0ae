import type { KernelContext } from './context.js'

/** Answers computed from the store are reused while nothing has changed (no event since, and no worktree moved:
 * `moves` counts the moves the git facts cache was told of before it read them again, services/git-facts) and they
 * are younger than `maxAgeMs` (a process dying or time passing shows within that). */
export class ViewCache<T> {
  private entries = new Map<string, { seen: string; at: number; value: Promise<T> }>()
  constructor(
    private readonly ctx: KernelContext,
    private readonly maxAgeMs: number,
    private readonly moves: () => number = () => 0,
    private readonly maxEntries = 64,
  ) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.ctx.io.clock.now()
    const seen = `${this.ctx.changeCount}:${this.moves()}`
    const e = this.entries.get(key)
    if (e && e.seen === seen && now - e.at < this.maxAgeMs) return e.value
    const value = compute()
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, { seen, at: now, value })
    value.catch(() => this.entries.delete(key))
    return value
  }
}
