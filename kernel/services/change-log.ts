import type { KernelContext, KernelEvent } from './context.js'

export interface Change extends KernelEvent {
  seq: number
  at: number
}

const KEEP = 1000

/** Recent changes, numbered, so a stream (the deck's SSE) can follow them through any KernelPort by long poll. */
export class ChangeLog {
  private items: Change[] = []
  private seq = 0
  constructor(private readonly ctx: KernelContext) {
    ctx.events.on('change', (e: KernelEvent) => {
      this.items.push({ ...e, seq: ++this.seq, at: ctx.io.clock.now() })
      if (this.items.length > KEEP) this.items.splice(0, this.items.length - KEEP)
    })
  }

  get last() {
    return this.seq
  }

  /** Changes after `after`, waiting up to timeoutMs for the first one. */
  async since(after: number, timeoutMs: number): Promise<{ changes: Change[]; last: number }> {
    const now = () => ({ changes: this.items.filter((c) => c.seq > after), last: this.seq })
    if (this.seq > after || timeoutMs <= 0) return now()
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t)
        this.ctx.events.off('change', done)
        resolve()
      }
      const t = setTimeout(done, timeoutMs)
      this.ctx.events.on('change', done)
    })
    return now()
  }
}
