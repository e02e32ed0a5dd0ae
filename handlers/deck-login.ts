import { Hono } from 'hono'
import { setCookie } from 'hono/cookie'
import { deckCookie } from './auth.js'
import type { HandlerEnv } from './env.js'
import { toErrorResponse } from './errors.js'
import { sessionPage } from './deck/pages.js'

/** GET /deck/login?code=…: trade the one-time code `svc deck` gave for a deck session in a cookie (HttpOnly,
 * SameSite=Strict, living as long as the session), then go to the deck. The only route that takes no credential. */
export const deckLogin = new Hono<HandlerEnv>().get('/login', async (c) => {
  const code = c.req.query('code') ?? ''
  let granted
  try {
    granted = await c.env.port.deckRedeem({ code })
  } catch (e) {
    const { body, status } = toErrorResponse(e)
    return c.html(sessionPage(body.error.message), status)
  }
  // Rounded, not floored: the session was granted a moment ago, and its life is whole seconds.
  const maxAge = Math.max(0, Math.round((granted.expiresAt - Date.now()) / 1000))
  setCookie(c, deckCookie(c.req.header('host') ?? ''), granted.session, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge,
  })
  return c.redirect('/', 303)
})
