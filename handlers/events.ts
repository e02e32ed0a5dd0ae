import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { HandlerEnv } from './env.js'

/** GET /api/events: the kernel's changes as server-sent events, followed through the port by long poll, so it works
 * the same in process and on workerd. */
export const events = new Hono<HandlerEnv>().get('/', (c) =>
  streamSSE(c, async (stream) => {
    let closed = false
    stream.onAbort(() => {
      closed = true
    })
    let after = (await c.env.port.changes({ after: 0, timeoutMs: 0 })).last
    await stream.writeSSE({ event: 'ready', data: JSON.stringify({ last: after }) })
    while (!closed) {
      try {
        const r = await c.env.port.changes({ after, timeoutMs: 15_000 })
        after = r.last
        if (r.changes.length) await stream.writeSSE({ event: 'change', id: String(r.last), data: JSON.stringify(r.changes) })
        else await stream.writeSSE({ event: 'ping', data: '' })
      } catch {
        await stream.sleep(1000)
      }
    }
  }),
)
