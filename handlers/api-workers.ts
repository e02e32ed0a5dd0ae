import { Hono } from 'hono'
import * as v from 'valibot'
import { PortSchemas } from '../kernel/port/port.js'
import type { HandlerEnv } from './env.js'
import { jsonBody, query, respond } from './respond.js'

/** The options of `svc worker run` in camelCase, the issue among them, plus `conversation` (the launching
 * conversation) and `conversationKey`. An HTTP caller has no current directory, so `cwd` is not among them. */
const WorkerRunBody = v.pipe(
  v.omit(PortSchemas.workerRun, ['cwd']),
  v.check((b) => b.conversation !== undefined, 'conversation is required: the id of the launching conversation'),
)
const WorkerReapBody = v.omit(PortSchemas.workerReap, ['worker'])

/** The workers API, beside the lanes API and shaped as it is. */
export const apiWorkers = new Hono<HandlerEnv>()
  .post('/', async (c) => {
    const body = await jsonBody(c, WorkerRunBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.workerRun(body.value), 201)
  })
  .get('/', async (c) => {
    const q = query(c, v.omit(PortSchemas.workerList, ['cwd']))
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.workerList(q.value))
  })
  .get('/:name', (c) => respond(c, () => c.env.port.workerGet({ worker: c.req.param('name') })))
  .post('/:name/reap', async (c) => {
    const body = await jsonBody(c, WorkerReapBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.workerReap({ worker: c.req.param('name'), ...body.value }))
  })
