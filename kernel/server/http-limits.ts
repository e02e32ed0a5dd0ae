import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Log } from '../io/log.js'

/** How long a client may take over its headers, and over its whole request (headers and body); a response the
 * client waits on (a long poll, the deck's events) is not bounded by either. */
export interface HttpLimits {
  headersTimeoutMs: number
  requestTimeoutMs: number
  /** A connection that has not begun a request (or sits between two) for this long is closed. */
  idleTimeoutMs: number
  /** Open connections at most; beyond it the one idle longest is closed (or, when all are awaiting answers, the
   * newcomer). Far below the kernel's file limit, so a flood cannot starve its own file reads. */
  maxConnections: number
}

export const HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 10_000,
  maxConnections: 256,
}

/** The options node's server takes at creation: it checks the header and body timeouts this often. */
export const serverOptions = (l: HttpLimits) => ({
  headersTimeout: l.headersTimeoutMs,
  requestTimeout: l.requestTimeoutMs,
  connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(l.headersTimeoutMs / 2))),
})

/** Bound the connections of the kernel's server: idle ones time out, and their number is capped by shedding. */
export function limitConnections(server: Server, l: HttpLimits, log: Log): void {
  server.keepAliveTimeout = Math.min(5_000, l.idleTimeoutMs)
  // Insertion order is age order: the first idle one found is the one idle longest.
  const open = new Map<Socket, { busy: boolean }>()
  let shed = 0
  let lastReport = 0
  server.on('connection', (socket: Socket) => {
    if (open.size >= l.maxConnections) {
      const oldestIdle = [...open].find(([, s]) => !s.busy)?.[0]
      ;(oldestIdle ?? socket).destroy()
      shed++
      if (Date.now() - lastReport > 60_000) {
        lastReport = Date.now()
        log('warn', `over ${l.maxConnections} open connections: closed ${shed} idle or excess connection(s) so far`)
      }
      if (!oldestIdle) return
    }
    const state = { busy: false }
    open.set(socket, state)
    socket.setTimeout(l.idleTimeoutMs, () => {
      if (!state.busy) socket.destroy()
    })
    socket.once('close', () => open.delete(socket))
  })
  server.on('request', (req, res) => {
    const state = open.get(req.socket)
    if (!state) return
    state.busy = true
    req.socket.setTimeout(0)
    res.once('close', () => {
      state.busy = false
      if (!req.socket.destroyed) req.socket.setTimeout(l.idleTimeoutMs)
    })
  })
}
