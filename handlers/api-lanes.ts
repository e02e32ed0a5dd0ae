import { Hono } from 'hono'
import * as v from 'valibot'
import { PortSchemas } from '../kernel/port/port.js'
import type { HandlerEnv } from './env.js'
import { jsonBody, query, respond } from './respond.js'

/** DESIGN.md 3: the options of `svc lane start` in camelCase plus `conversation`, the launching conversation (what
 * $SERVICE_CONVERSATION is to the CLI), and `conversationKey`, its key when it has one ($SERVICE_CONVERSATION_KEY). An
 * HTTP caller has no current directory, so `cwd` is not among them. */
const LaneStartBody = v.pipe(
  v.omit(PortSchemas.laneStart, ['cwd']),
  v.check(
    (b) => b.conversation !== undefined || b.parent !== undefined,
    'conversation is required: the id of the launching conversation',
  ),
)
const ReapBody = v.omit(PortSchemas.laneReap, ['lane'])

/** SPEC.md 4.4: the lanes API. */
export const apiLanes = new Hono<HandlerEnv>()
  .post('/', async (c) => {
    const body = await jsonBody(c, LaneStartBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.laneStart(body.value), 201)
  })
  .get('/', async (c) => {
    const q = query(c, PortSchemas.laneList)
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.laneList(q.value))
  })
  .get('/:name', (c) => respond(c, () => c.env.port.laneGet({ lane: c.req.param('name') })))
  .post('/:name/reap', async (c) => {
    const body = await jsonBody(c, ReapBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.laneReap({ lane: c.req.param('name'), ...body.value }))
  })
