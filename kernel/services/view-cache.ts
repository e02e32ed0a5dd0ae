import type { KernelContext } from './context.js'

/** Answers computed from the store are reused while nothing has changed (no event since: worktrees' git facts that
 * change are events too, services/git-facts) and they are younger than `maxAgeMs` (a process dying or time passing
 * shows within that). */
export class ViewCache<T> {
  private entries = new Map<string, { changeCount: number; at: number; value: Promise<T> }>()
  constructor(
    private readonly ctx: KernelContext,
    private readonly maxAgeMs: number,
    private readonly maxEntries = 64,
  ) {}

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.ctx.io.clock.now()
    const e = this.entries.get(key)
    if (e && e.changeCount === this.ctx.changeCount && now - e.at < this.maxAgeMs) return e.value
    const value = compute()
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, { changeCount: this.ctx.changeCount, at: now, value })
    value.catch(() => this.entries.delete(key))
    return value
  }
}
