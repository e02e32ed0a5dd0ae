import { Hono } from 'hono'
import * as v from 'valibot'
import { PortSchemas, type PortMethod } from '../kernel/port.js'
import type { HandlerEnv } from './env.js'
import { errorBody, toErrorResponse } from './errors.js'

/** The message of the first validation issue, naming the field. */
export function issueMessage(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0]
  const path = v.getDotPath(issue)
  if (issue.type === 'strict_object' && path) return `unknown field ${path}`
  return path ? `${path}: ${issue.message}` : issue.message
}

/** POST /rpc/<method>: every KernelPort method, its input validated by its schema. Generated from the table in
 * kernel/port.ts, never written per verb. */
export const rpc = new Hono<HandlerEnv>().post('/:method', async (c) => {
  const method = c.req.param('method')
  if (!Object.hasOwn(PortSchemas, method)) return c.json(errorBody('not_found', `no method ${method}`), 404)
  let body: unknown
  try {
    body = await c.req.json()
  } catch {
    return c.json(errorBody('usage', 'the request body is not JSON'), 400)
  }
  const parsed = v.safeParse(PortSchemas[method as PortMethod], body)
  if (!parsed.success) return c.json(errorBody('usage', issueMessage(parsed.issues)), 400)
  try {
    const port = c.env.port as unknown as Record<string, (i: unknown) => Promise<unknown>>
    return c.json(await port[method](parsed.output))
  } catch (e) {
    const { body: errBody, status } = toErrorResponse(e)
    return c.json(errBody, status)
  }
})
