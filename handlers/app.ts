import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { guard } from './auth.js'
import type { HandlerEnv } from './env.js'
import { errorBody } from './errors.js'
import { rpc } from './rpc.js'
import { apiLanes } from './api-lanes.js'
import { apiWorkers } from './api-workers.js'
import { apiConvs } from './api-convs.js'
import { events } from './events.js'
import { apiSession } from './api-session.js'
import { deckLogin } from './deck-login.js'
import { deckPages } from './deck/pages.js'

/** Request bodies beyond this are refused with 413 (a brief or a report is far smaller). */
export const MAX_BODY = 4 * 1024 * 1024

/** The whole HTTP surface, stateless: the kernel comes from c.env.port. */
export function createApp() {
  const app = new Hono<HandlerEnv>()
  app.use('*', guard)
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) => c.json(errorBody('too_large', `request body over ${MAX_BODY} bytes`), 413),
    }),
  )
  app.route('/rpc', rpc)
  app.route('/api/lanes', apiLanes)
  app.route('/api/workers', apiWorkers)
  app.route('/api/events', events)
  app.route('/api/session', apiSession)
  app.route('/api', apiConvs)
  app.route('/deck', deckLogin)
  app.route('/', deckPages)
  app.notFound((c) => c.json(errorBody('not_found', `no route ${c.req.method} ${c.req.path}`), 404))
  app.onError((e, c) => c.json(errorBody('internal', `internal error: ${e.message}`), 500))
  return app
}
