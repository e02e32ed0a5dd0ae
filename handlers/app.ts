import { Hono } from 'hono'
import { guard } from './auth.js'
import { limitBody } from './body-limit.js'
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

export { MAX_BODY } from './body-limit.js'

/** The whole HTTP surface, stateless: the kernel comes from c.env.port. */
export function createApp() {
  const app = new Hono<HandlerEnv>()
  app.use('*', guard)
  app.use('*', limitBody)
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
