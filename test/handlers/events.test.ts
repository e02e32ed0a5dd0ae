import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SSEStreamingApi } from 'hono/streaming'
import { HEARTBEAT_MS, followChanges } from '../../handlers/events.js'
import { SvcError } from '../../kernel/domain/errors.js'
import type { PortOutputs } from '../../kernel/port/port.js'
import { answer, err, harness } from './kit.js'
import { until } from '../helpers/home.js'

type Changes = PortOutputs['changes']
const change = (seq: number, name = 'r1-b-builder-i1', what = 'report') => ({ seq, at: 1000 + seq, name, what })

/** A `changes` that answers the first (timeoutMs 0) call with `last`, then each poll with the next scripted answer
 * (an Error is thrown), and then waits for ever, as a kernel with nothing new does. */
function scripted(last: number, polls: (Changes | Error)[]) {
  return async (input: { after: number; timeoutMs: number }): Promise<Changes> => {
    if (input.timeoutMs === 0) return { changes: [], last }
    const next = polls.shift()
    if (next instanceof Error) throw next
    if (next) return next
    return new Promise<Changes>(() => {})
  }
}

/** Reads the event stream until `count` events have arrived; returns them parsed, and cancels the stream. */
async function events(res: Response, count: number) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  while (text.split('\n\n').length - 1 < count) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value)
  }
  await reader.cancel()
  return text
    .split('\n\n')
    .filter(Boolean)
    .slice(0, count)
    .map((block) =>
      Object.fromEntries(
        block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      ),
    )
}

test('GET /api/events: ready with the last change, then each poll as a change event (id = last seq) or a ping', async () => {
  const polls = [
    { changes: [change(5), change(6, 'r1-b-critic-i1', 'state')], last: 6 },
    { changes: [], last: 6 },
    { changes: [change(7)], last: 7 },
  ]
  const { ask, calls } = harness({ changes: scripted(4, polls) })
  const res = await ask('/api/events')
  assert.is(res.status, 200)
  assert.is(res.headers.get('content-type'), 'text/event-stream')
  assert.is(res.headers.get('cache-control'), 'no-cache')
  assert.equal(await events(res, 4), [
    { event: 'ready', data: '{"last":4,"pingMs":5000}', retry: '2000' },
    { event: 'change', data: JSON.stringify([change(5), change(6, 'r1-b-critic-i1', 'state')]), id: '6' },
    { event: 'ping', data: '' },
    { event: 'change', data: JSON.stringify([change(7)]), id: '7' },
  ])
  // The poll after the last event read may or may not have begun when the client went away.
  assert.equal(calls.map((c) => c.input).slice(0, 4), [
    { after: 0, timeoutMs: 0 },
    { after: 4, timeoutMs: HEARTBEAT_MS },
    { after: 6, timeoutMs: HEARTBEAT_MS },
    { after: 6, timeoutMs: HEARTBEAT_MS },
  ])
  assert.ok(calls.length <= 5)
})

test('GET /api/events: a reconnect with Last-Event-ID continues after it; an id the kernel never reached (it restarted) starts from now', async () => {
  for (const [lastEventId, after] of [
    ['2', 2],
    ['0', 0],
    ['9', 4],
    ['x', 4],
    ['-1', 4],
  ] as const) {
    const { ask, calls } = harness({ changes: scripted(4, [{ changes: [change(5)], last: 5 }]) })
    const [ready] = await events(await ask('/api/events', { headers: { 'last-event-id': lastEventId } }), 2)
    assert.equal(
      ready,
      { event: 'ready', data: JSON.stringify({ last: after, pingMs: HEARTBEAT_MS }), retry: '2000' },
      lastEventId,
    )
    assert.equal(calls[1].input, { after, timeoutMs: HEARTBEAT_MS }, lastEventId)
  }
})

test('GET /api/events: a kernel that cannot answer before the stream starts is an ordinary error response', async () => {
  const { ask } = harness({
    changes: async () => {
      throw new SvcError('unavailable', 'the kernel is not answering')
    },
  })
  assert.equal(await answer(ask('/api/events')), {
    status: 503,
    body: err('unavailable', 'the kernel is not answering'),
  })
})

test('GET /api/events: a failed poll is retried; the stream goes on', async () => {
  const { ask, calls } = harness({
    changes: scripted(1, [new Error('connection reset'), { changes: [change(2)], last: 2 }]),
  })
  const got = await events(await ask('/api/events'), 2)
  assert.equal(got[1], { event: 'change', data: JSON.stringify([change(2)]), id: '2' })
  assert.equal(calls.map((c) => c.input).slice(0, 3), [
    { after: 0, timeoutMs: 0 },
    { after: 1, timeoutMs: HEARTBEAT_MS },
    { after: 1, timeoutMs: HEARTBEAT_MS },
  ])
  assert.ok(calls.length <= 4)
})

test('the event stream: once the client goes away, the poll under way is the last', async () => {
  let release!: (c: Changes) => void
  let polls = 0
  let polledAgain!: () => void
  const again = new Promise<void>((r) => (polledAgain = r))
  const changes = async () => {
    if (++polls > 1) polledAgain()
    return new Promise<Changes>((r) => (release = r))
  }
  // The stream the route hands its loop, read as a client reads it.
  const { readable, writable } = new TransformStream()
  const stream = new SSEStreamingApi(writable, readable)
  const ended = followChanges({ changes }, stream, 3, HEARTBEAT_MS)
  const client = stream.responseReadable.getReader()
  assert.match(new TextDecoder().decode((await client.read()).value), 'event: ready')
  await until(() => polls === 1, 'the first poll under way', 5000, 5)
  await client.cancel()
  release({ changes: [change(4)], last: 4 })
  // The barrier: the loop has ended, or (failing) it polled again.
  await Promise.race([ended, again])
  assert.is(polls, 1, 'the loop ended with the poll that was under way')
})

test.run()
