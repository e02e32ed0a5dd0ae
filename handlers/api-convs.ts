import { Hono } from 'hono'
import * as v from 'valibot'
import type { HandlerEnv } from './env.js'
import { errorBody } from './errors.js'
import { jsonBody, query, respond } from './respond.js'

const TellBody = v.strictObject({ text: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(1_000_000)), force: v.optional(v.boolean()) })
const AnswerBody = v.strictObject({ decision: v.picklist(['allow', 'deny'], 'must be allow or deny'), message: v.optional(v.pipe(v.string(), v.maxLength(100_000))) })

/** What the deck needs beyond the lanes API: the tree, one conversation, its transcript, tell, answers. */
export const apiConvs = new Hono<HandlerEnv>()
  .get('/tree', async (c) => {
    const q = query(c, ['run', 'parent'])
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.deckTree(q.value))
  })
  .get('/convs/:ref', (c) => respond(c, () => c.env.port.convShow({ conv: c.req.param('ref') })))
  .get('/convs/:ref/transcript', async (c) => {
    const q = query(c, ['after'])
    if (!q.ok) return q.res
    const after = q.value.after === undefined ? undefined : Number(q.value.after)
    if (after !== undefined && !(Number.isInteger(after) && after >= 0)) return c.json(errorBody('usage', 'after must be a whole number'), 400)
    return respond(c, () => c.env.port.convTranscript({ conv: c.req.param('ref'), after }))
  })
  .post('/convs/:ref/tell', async (c) => {
    const body = await jsonBody(c, TellBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.tell({ conv: c.req.param('ref'), text: body.value.text, force: body.value.force }))
  })
  .post('/convs/:ref/answer', async (c) => {
    const body = await jsonBody(c, AnswerBody)
    if (!body.ok) return body.res
    const port = c.env.port as unknown as Record<string, ((i: unknown) => Promise<unknown>) | undefined>
    const answer = port.convAnswer
    if (!answer) return c.json(errorBody('not_found', 'this kernel cannot answer requests'), 404)
    return respond(c, () => answer({ conv: c.req.param('ref'), ...body.value }) as Promise<object>)
  })
