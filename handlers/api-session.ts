import { Hono } from 'hono'
import { getCookie } from 'hono/cookie'
import { deckCookie } from './auth.js'
import type { HandlerEnv } from './env.js'
import { respond } from './respond.js'

/** GET /api/session: whether the kernel answers this deck page, and until when its session lives. The deck asks it
 * when its event stream breaks, to know when to reconnect (the guard has already refused a dead session). */
export const apiSession = new Hono<HandlerEnv>().get('/', (c) => {
  const session = getCookie(c, deckCookie(c.req.header('host') ?? ''))
  return respond(c, async () => (session ? c.env.port.deckSession({ session }) : {}))
})
