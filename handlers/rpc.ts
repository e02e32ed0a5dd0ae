import { Hono } from 'hono'
import { PortSchemas, callPort, type PortMethod } from '../kernel/port/port.js'
import type { HandlerEnv } from './env.js'
import { errorBody } from './errors.js'
import { jsonBody, respond } from './respond.js'

/** POST /rpc/<method>: every KernelPort method, its input validated by its schema. Generated from the table in
 * kernel/port/port.ts, never written per verb. */
export const rpc = new Hono<HandlerEnv>().post('/:method', async (c) => {
  const name = c.req.param('method')
  if (!Object.hasOwn(PortSchemas, name)) return c.json(errorBody('not_found', `no method ${name}`), 404)
  const method = name as PortMethod
  const body = await jsonBody(c, PortSchemas[method])
  if (!body.ok) return body.res
  return respond(c, () => callPort(c.env.port, method, body.value))
})
