import type { MiddlewareHandler } from 'hono'
import { getCookie } from 'hono/cookie'
import type { HandlerEnv } from './env.js'
import { errorBody } from './errors.js'

/** Compare in time that depends on the length of the expected value only. */
export function constantTimeEqual(given: string, expected: string): boolean {
  let diff = given.length ^ expected.length
  for (let i = 0; i < expected.length; i++) diff |= (given.charCodeAt(i % Math.max(given.length, 1)) || 0) ^ expected.charCodeAt(i)
  return diff === 0
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
/** The deck's token cookie, named by the port of the Host: a browser shares cookies across the ports of one host,
 * while each kernel (one per SERVICE_HOME) listens on its own port with its own token. One name for all would let
 * logging in to one deck log the browser out of another. */
export function tokenCookie(host: string): string {
  const port = /:(\d+)$/.exec(host)?.[1]
  return port ? `svc_token_${port}` : 'svc_token'
}

/** The Host must name the loopback (no DNS rebinding); a mutating request from another origin is refused; every
 * route needs the token, as a bearer header or the deck's cookie. */
export const guard: MiddlewareHandler<HandlerEnv> = async (c, next) => {
  const host = c.req.header('host') ?? ''
  const hostname = host.replace(/:\d+$/, '')
  if (!LOOPBACK.has(hostname)) return c.json(errorBody('forbidden', `host ${hostname || '(none)'} is not the loopback`), 403)
  const origin = c.req.header('origin')
  // The whole origin (scheme, host and port) must be this server's own.
  if (origin !== undefined && !['GET', 'HEAD'].includes(c.req.method) && origin !== `${new URL(c.req.url).protocol}//${host}`)
    return c.json(errorBody('forbidden', `requests from origin ${origin} are refused`), 403)
  // The one route without a token: it trades a one-time code for the cookie.
  if (c.req.path === '/deck/login' && c.req.method === 'GET') return next()
  const header = c.req.header('authorization') ?? ''
  const given = header.startsWith('Bearer ') ? header.slice(7) : getCookie(c, tokenCookie(host)) ?? ''
  if (!constantTimeEqual(given, c.env.token)) return c.json(errorBody('unauthorized', 'missing or wrong token'), 401)
  await next()
}
