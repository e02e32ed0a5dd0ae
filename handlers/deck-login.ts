import { Hono } from 'hono'
import { setCookie } from 'hono/cookie'
import { tokenCookie } from './auth.js'
import type { HandlerEnv } from './env.js'
import { toErrorResponse } from './errors.js'

/** GET /deck/login?code=…: trade the one-time code `svc deck` printed for the token cookie (HttpOnly,
 * SameSite=Strict), then go to the deck. The only route that takes no token. */
export const deckLogin = new Hono<HandlerEnv>().get('/login', async (c) => {
  const code = c.req.query('code') ?? ''
  try {
    await c.env.port.deckRedeem({ code })
  } catch (e) {
    const { body, status } = toErrorResponse(e)
    return c.text(body.error.message + '\n', status)
  }
  setCookie(c, tokenCookie(c.req.header('host') ?? ''), c.env.token, { httpOnly: true, sameSite: 'Strict', path: '/' })
  return c.redirect('/', 303)
})
