import { Hono } from 'hono'
import * as v from 'valibot'
import { PortSchemas } from '../kernel/port.js'
import type { HandlerEnv } from './env.js'
import { jsonBody, query, respond } from './respond.js'

const ReapBody = v.strictObject({ park: v.optional(v.boolean()), keep: v.optional(v.boolean()) })

/** SPEC.md 4.4: the lanes API. POST takes the options of `svc lane start` in camelCase plus `conversation`. */
export const apiLanes = new Hono<HandlerEnv>()
  .post('/', async (c) => {
    const body = await jsonBody(c, PortSchemas.laneStart)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.laneStart(body.value), 201)
  })
  .get('/', async (c) => {
    const q = query(c, ['run', 'parent', 'key'])
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.laneList(q.value))
  })
  .get('/:name', (c) => respond(c, () => c.env.port.laneGet({ lane: c.req.param('name') })))
  .post('/:name/reap', async (c) => {
    const body = await jsonBody(c, ReapBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.laneReap({ lane: c.req.param('name'), ...body.value }))
  })
