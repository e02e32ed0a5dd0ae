import type { Context } from 'hono'
import * as v from 'valibot'
import type { HandlerEnv } from './env.js'
import { errorBody, toErrorResponse } from './errors.js'

/** The message of the first validation issue, naming the field (or query parameter). */
function issueMessage(issues: readonly v.BaseIssue<unknown>[], what = 'field'): string {
  const issue = issues[0]
  const path = v.getDotPath(issue)
  // An object schema reports both an unknown key (expected never) and a missing one (received undefined).
  if ((issue.type === 'strict_object' || issue.type === 'object') && path) {
    if (issue.expected === 'never') return `unknown ${what} ${path}`
    if (issue.received === 'undefined') return `${what} ${path} is required`
  }
  return path ? `${path}: ${issue.message}` : issue.message
}

type Parsed<S extends v.GenericSchema> = { ok: true; value: v.InferOutput<S> } | { ok: false; res: Response }

const serialized = new WeakMap<object, Uint8Array<ArrayBuffer>>()
const utf8 = new TextEncoder()
/** JSON of a result, as bytes; a result object the kernel hands out again (a cached list) is serialized and encoded
 * once, not on every answer (a list of 1000 lanes is over 300 KB). */
function serialize(value: object): Uint8Array<ArrayBuffer> {
  let bytes = serialized.get(value)
  if (bytes === undefined) {
    bytes = utf8.encode(JSON.stringify(value)) as Uint8Array<ArrayBuffer>
    serialized.set(value, bytes)
  }
  return bytes
}

/** Answer with the result of a kernel call, or its error as `{"error":{"code","message"}}` with its status. */
export async function respond<T>(c: Context<HandlerEnv>, call: () => Promise<T>, status: 200 | 201 = 200) {
  try {
    return c.body(serialize((await call()) as object), status, { 'content-type': 'application/json' })
  } catch (e) {
    const { body, status: s } = toErrorResponse(e)
    return c.json(body, s)
  }
}

/** The JSON body validated by a schema: the parsed value, or a 400 response. */
export async function jsonBody<S extends v.GenericSchema>(c: Context<HandlerEnv>, schema: S): Promise<Parsed<S>> {
  let raw: unknown
  try {
    raw = await c.req.json()
  } catch {
    return { ok: false, res: c.json(errorBody('usage', 'the request body is not JSON'), 400) }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, res: c.json(errorBody('usage', 'the request body must be a JSON object'), 400) }
  const parsed = v.safeParse(schema, raw)
  if (!parsed.success) return { ok: false, res: c.json(errorBody('usage', issueMessage(parsed.issues)), 400) }
  return { ok: true, value: parsed.output }
}

/** The query parameters validated by a (strict object) schema of strings; each parameter at most once. */
export function query<S extends v.GenericSchema>(c: Context<HandlerEnv>, schema: S): Parsed<S> {
  // No prototype: a parameter named __proto__ is a key like any other (and refused as unknown), not a setter.
  const raw: Record<string, string> = Object.create(null)
  for (const [k, val] of new URL(c.req.url).searchParams) {
    if (Object.hasOwn(raw, k))
      return { ok: false, res: c.json(errorBody('usage', `query parameter ${k} given twice`), 400) }
    raw[k] = val
  }
  const parsed = v.safeParse(schema, raw)
  if (!parsed.success)
    return { ok: false, res: c.json(errorBody('usage', issueMessage(parsed.issues, 'query parameter')), 400) }
  return { ok: true, value: parsed.output }
}
