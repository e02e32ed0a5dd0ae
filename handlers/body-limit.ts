import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { HandlerEnv } from './env.js'
import { errorBody } from './errors.js'

/** Request bodies beyond this are refused with 413 (a brief or a report is far smaller). */
export const MAX_BODY = 4 * 1024 * 1024

const tooLarge: Parameters<typeof bodyLimit>[0]['onError'] = (c) =>
  c.json(errorBody('too_large', `request body over ${MAX_BODY} bytes`), 413)
const counted = bodyLimit({ maxSize: MAX_BODY, onError: tooLarge })

/** Refuse a body over MAX_BODY. A body whose length is declared (every client of the kernel declares it) is judged
 * by its header, and a GET or HEAD without one has no body: neither is looked at here. Only a body of unknown length
 * is read and counted. Asking a request for its body builds a whole web Request around it (a stream and an abort
 * listener the runtime frees only in a full collection): one per call piles up in the heap, and the full collection
 * that frees them held up the kernel's answers for over 100 ms once a few thousand had gathered. */
export const limitBody: MiddlewareHandler<HandlerEnv> = async (c, next) => {
  const length = c.req.header('content-length')
  const chunked = c.req.header('transfer-encoding') !== undefined
  if (!chunked && length !== undefined && /^\d+$/.test(length))
    return Number(length) > MAX_BODY ? (tooLarge(c) as Response) : next()
  if (!chunked && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next()
  return counted(c, next)
}
