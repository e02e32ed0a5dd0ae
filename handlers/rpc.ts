import { Hono } from 'hono'
import { PortSchemas, type PortMethod } from '../kernel/port/port.js'
import type { HandlerEnv } from './env.js'
import { errorBody } from './errors.js'
import { jsonBody, respond } from './respond.js'

/** POST /rpc/<method>: every KernelPort method, its input validated by its schema. Generated from the table in
 * kernel/port/port.ts, never written per verb. */
export const rpc = new Hono<HandlerEnv>().post('/:method', async (c) => {
  const method = c.req.param('method')
  if (!Object.hasOwn(PortSchemas, method)) return c.json(errorBody('not_found', `no method ${method}`), 404)
  const body = await jsonBody(c, PortSchemas[method as PortMethod])
  if (!body.ok) return body.res
  const port = c.env.port as unknown as Record<string, (i: unknown) => Promise<object>>
  return respond(c, () => port[method](body.value))
})
