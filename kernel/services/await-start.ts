import type { ConversationRecord } from '../domain/conversation.js'
import type { ConvView } from '../port/port.js'
import type { KernelContext, KernelEvent } from './context.js'

/** Wait until a conversation has left `starting` (started, failed to start, or already ended), or the limit. Woken
 * by the watcher's events; liveness is not an event, so it is also rechecked every 100 ms. */
export function awaitStart(ctx: KernelContext, rec: ConversationRecord, limitMs: number): Promise<ConvView> {
  return new Promise((resolve) => {
    const check = () => {
      const v = ctx.view(ctx.store.get(rec.id) ?? rec)
      if (v.activity !== 'starting' || ctx.io.clock.now() >= deadline) {
        done()
        resolve(v)
      }
    }
    const onEvent = (e: KernelEvent) => {
      if (e.name === rec.name) check()
    }
    const deadline = ctx.io.clock.now() + limitMs
    const timer = setInterval(check, 100)
    const done = () => {
      clearInterval(timer)
      ctx.events.off('change', onEvent)
    }
    ctx.events.on('change', onEvent)
    check()
  })
}
