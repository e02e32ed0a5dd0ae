import { Hono } from 'hono'
import { SSEStreamingApi, streamSSE } from 'hono/streaming'
import type { KernelPort } from '../kernel/port/port.js'
import type { HandlerEnv } from './env.js'
import { toErrorResponse } from './errors.js'

/** The heartbeat: a stream with nothing to say says `ping` this often, so a page that hears nothing for a while
 * knows its stream is broken (a dead kernel, a sleeping laptop) even when the socket looks open. It is also how long
 * one long poll of the kernel's changes waits. */
export const HEARTBEAT_MS = 5_000

/** GET /api/events: the kernel's changes as server-sent events (`ready`, then `change` with the changes as data and
 * their last seq as id, `ping` when a poll ends empty). Followed through the port by long poll, so it works the same
 * in process and on workerd. A reconnecting EventSource sends Last-Event-ID and misses nothing the kernel still
 * holds. */
export const events = new Hono<HandlerEnv>().get('/', async (c) => {
  let start: number
  try {
    start = (await c.env.port.changes({ after: 0, timeoutMs: 0 })).last
  } catch (e) {
    // Before the stream starts, a kernel that cannot answer is an ordinary error response.
    const { body, status } = toErrorResponse(e)
    return c.json(body, status)
  }
  const resumeFrom = Number(c.req.header('last-event-id'))
  // A kernel that restarted numbers its changes anew: an id beyond its last one means "from now".
  const after = Number.isInteger(resumeFrom) && resumeFrom >= 0 && resumeFrom <= start ? resumeFrom : start
  // `pingMs`: the longest the page waits between two events while the kernel is well (it checks by it).
  return streamSSE(c, (stream) => followChanges(c.env.port, stream, after, c.env.heartbeatMs ?? HEARTBEAT_MS))
})

/** The event stream's loop: `ready`, then each long poll of the kernel's changes as an event, until the client
 * goes away; the poll under way then is the last. Resolves once the loop has ended. */
export async function followChanges(
  port: Pick<KernelPort, 'changes'>,
  stream: SSEStreamingApi,
  after: number,
  pingMs: number,
): Promise<void> {
  let closed = false
  stream.onAbort(() => {
    closed = true
  })
  await stream.writeSSE({ event: 'ready', data: JSON.stringify({ last: after, pingMs }), retry: 2000 })
  while (!closed) {
    try {
      const r = await port.changes({ after, timeoutMs: pingMs })
      if (closed) break
      after = r.last
      if (r.changes.length)
        await stream.writeSSE({ event: 'change', id: String(r.last), data: JSON.stringify(r.changes) })
      else await stream.writeSSE({ event: 'ping', data: '' })
    } catch {
      await stream.sleep(1000)
    }
  }
}
