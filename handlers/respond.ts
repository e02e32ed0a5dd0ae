import type { Context } from 'hono'
import * as v from 'valibot'
import type { HandlerEnv } from './env.js'
import { errorBody, toErrorResponse } from './errors.js'
import { issueMessage } from './rpc.js'

/** Answer with the result of a kernel call, or its error as `{"error":{"code","message"}}` with its status. */
export async function respond<T>(c: Context<HandlerEnv>, call: () => Promise<T>, status: 200 | 201 = 200) {
  try {
    return c.json(await call() as object, status)
  } catch (e) {
    const { body, status: s } = toErrorResponse(e)
    return c.json(body, s)
  }
}

/** The JSON body validated by a schema: the parsed value, or a 400 response. */
export async function jsonBody<S extends v.GenericSchema>(c: Context<HandlerEnv>, schema: S): Promise<{ ok: true; value: v.InferOutput<S> } | { ok: false; res: Response }> {
  let raw: unknown
  try {
    raw = await c.req.json()
  } catch {
    return { ok: false, res: c.json(errorBody('usage', 'the request body is not JSON'), 400) }
  }
  const parsed = v.safeParse(schema, raw)
  if (!parsed.success) return { ok: false, res: c.json(errorBody('usage', issueMessage(parsed.issues)), 400) }
  return { ok: true, value: parsed.output }
}

/** Query parameters: only the named ones, each at most once. */
export function query(c: Context<HandlerEnv>, names: string[]): { ok: true; value: Record<string, string | undefined> } | { ok: false; res: Response } {
  const url = new URL(c.req.url)
  const value: Record<string, string | undefined> = {}
  for (const [k, val] of url.searchParams) {
    if (!names.includes(k)) return { ok: false, res: c.json(errorBody('usage', `unknown query parameter ${k}`), 400) }
    if (k in value) return { ok: false, res: c.json(errorBody('usage', `query parameter ${k} given twice`), 400) }
    value[k] = val
  }
  return { ok: true, value }
}
