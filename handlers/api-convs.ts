import { Hono } from 'hono'
import * as v from 'valibot'
import { MAX_DIFF_BYTES } from '../kernel/domain/diff-limits.js'
import { PortSchemas } from '../kernel/port/port.js'
import type { HandlerEnv } from './env.js'
import { jsonBody, query, respond } from './respond.js'
import { errorBody } from './errors.js'

const TellBody = v.omit(PortSchemas.tell, ['conv', 'conversation', 'conversationKey'])
const AnswerBody = v.omit(PortSchemas.convAnswer, ['conv'])
/** `cursor`: the byte offset a page answered; without it, the last page. */
const TranscriptQuery = v.strictObject({
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be a whole number'), v.transform(Number))),
})

/** `maxBytes`: how much of the patch (a change, or a parked one) to answer (the deck's "more"). */
const DiffQuery = v.strictObject({
  maxBytes: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,8}$/, 'must be a whole number'),
      v.transform(Number),
      v.minValue(1024),
      v.maxValue(MAX_DIFF_BYTES),
    ),
  ),
})

/** What the deck needs beyond the lanes API: the tree, one conversation with its page's detail, its change, its
 * transcript, a parked patch, tell, answers, stop, archive. */
export const apiConvs = new Hono<HandlerEnv>()
  .get('/tree', async (c) => {
    const q = query(c, PortSchemas.deckTree)
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.deckTree(q.value))
  })
  .get('/convs/:ref', (c) => respond(c, () => c.env.port.convShow({ conv: c.req.param('ref') })))
  .get('/convs/:ref/detail', (c) => respond(c, () => c.env.port.convDetail({ conv: c.req.param('ref') })))
  .get('/convs/:ref/diff', async (c) => {
    const q = query(c, DiffQuery)
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.convDiff({ conv: c.req.param('ref'), ...q.value }))
  })
  .get('/convs/:ref/parked/:patch', async (c) => {
    const q = query(c, DiffQuery)
    if (!q.ok) return q.res
    const parsed = v.safeParse(PortSchemas.convParked.entries.patch, c.req.param('patch'))
    if (!parsed.success) return c.json(errorBody('usage', `patch: ${parsed.issues[0].message}`), 400)
    return respond(c, () => c.env.port.convParked({ conv: c.req.param('ref'), patch: parsed.output, ...q.value }))
  })
  .post('/convs/:ref/stop', (c) => respond(c, () => c.env.port.convStop({ conv: c.req.param('ref') })))
  .post('/convs/:ref/archive', (c) => respond(c, () => c.env.port.convArchive({ conv: c.req.param('ref') })))
  .get('/convs/:ref/transcript', async (c) => {
    const q = query(c, TranscriptQuery)
    if (!q.ok) return q.res
    return respond(c, () => c.env.port.convTranscript({ conv: c.req.param('ref'), ...q.value }))
  })
  .post('/convs/:ref/tell', async (c) => {
    const body = await jsonBody(c, TellBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.tell({ conv: c.req.param('ref'), ...body.value }))
  })
  .post('/convs/:ref/answer', async (c) => {
    const body = await jsonBody(c, AnswerBody)
    if (!body.ok) return body.res
    return respond(c, () => c.env.port.convAnswer({ conv: c.req.param('ref'), ...body.value }))
  })
