import type { MiddlewareHandler } from 'hono'
import { getCookie } from 'hono/cookie'
import type { HandlerEnv } from './env.js'
import { errorBody, toErrorResponse } from './errors.js'
import { sessionPage } from './deck/pages.js'

/** Compare in time that depends on the length of the expected value only. */
export function constantTimeEqual(given: string, expected: string): boolean {
  let diff = given.length ^ expected.length
  for (let i = 0; i < expected.length; i++)
    diff |= (given.charCodeAt(i % Math.max(given.length, 1)) || 0) ^ expected.charCodeAt(i)
  return diff === 0
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
/** The deck's session cookie, named by the port of the Host: a browser shares cookies across the ports of one host,
 * while each kernel (one per SERVICE_HOME) listens on its own port. One name for all would let logging in to one
 * deck log the browser out of another. */
export function deckCookie(host: string): string {
  const port = /:(\d+)$/.exec(host)?.[1]
  return port ? `svc_deck_${port}` : 'svc_deck'
}

/** The deck's routes: its pages and what its browser code calls (launching a lane or a worker among them: a person
 * starts work from the page). Only these take the deck's session; everything else (the RPC, the lane list) needs the
 * bearer token. */
const DECK_ROUTES: [string, RegExp][] = [
  ['GET', /^\/(agents|conv\/[^/]+|deck\/client\.js)?$/],
  ['GET', /^\/api\/(session|tree|events|lanes\/[^/]+|convs\/[^/]+(\/(transcript|detail|diff)|\/parked\/[^/]+)?)$/],
  ['POST', /^\/api\/(convs\/[^/]+\/(tell|answer|stop|archive)|lanes\/[^/]+\/reap|lanes|workers)$/],
]
/** The deck's pages (not its browser code or API). */
const DECK_PAGE = /^\/(agents|conv\/[^/]+)?$/
const isDeckRoute = (method: string, path: string) => DECK_ROUTES.some(([m, re]) => m === method && re.test(path))

const WRONG_TOKEN = 'missing or wrong token'

/** The Host must name the loopback (no DNS rebinding); a mutating request from another origin is refused; a route
 * needs the token as a bearer header, or for the deck's routes, the deck's session cookie. */
export const guard: MiddlewareHandler<HandlerEnv> = async (c, next) => {
  const host = c.req.header('host') ?? ''
  const hostname = host.replace(/:\d+$/, '')
  if (!LOOPBACK.has(hostname))
    return c.json(errorBody('forbidden', `host ${hostname || '(none)'} is not the loopback`), 403)
  const origin = c.req.header('origin')
  // The whole origin (scheme, host and port) must be this server's own.
  if (
    origin !== undefined &&
    !['GET', 'HEAD'].includes(c.req.method) &&
    origin !== `${new URL(c.req.url).protocol}//${host}`
  )
    return c.json(errorBody('forbidden', `requests from origin ${origin} are refused`), 403)
  // The one route without a credential: it trades a one-time code for a deck session.
  if (c.req.path === '/deck/login' && c.req.method === 'GET') return next()
  const header = c.req.header('authorization')
  if (header !== undefined) {
    if (!header.startsWith('Bearer ') || !constantTimeEqual(header.slice(7), c.env.token))
      return c.json(errorBody('unauthorized', WRONG_TOKEN), 401)
    return next()
  }
  const session = getCookie(c, deckCookie(host))
  // A person opening a deck page gets a page saying what to run, never an error body.
  const page = c.req.method === 'GET' && DECK_PAGE.test(c.req.path)
  if (!session || !isDeckRoute(c.req.method, c.req.path)) {
    if (page) return c.html(sessionPage('This browser holds no session for this deck.'), 401)
    return c.json(errorBody('unauthorized', WRONG_TOKEN), 401)
  }
  try {
    await c.env.port.deckSession({ session })
  } catch (e) {
    const { body, status } = toErrorResponse(e)
    if (page) return c.html(sessionPage(body.error.message), status)
    return c.json(body, status)
  }
  await next()
}
