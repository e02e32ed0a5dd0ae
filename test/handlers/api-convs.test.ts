import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { DeckTree } from '../../kernel/port/port.js'
import { NOW, answer, convView, emptyTree, err, harness, laneView, refuse } from './kit.js'

// ---- GET /api/tree ----

const tree: DeckTree = {
  roots: [
    {
      id: '1',
      children: [
        {
          id: '2',
          children: [
            { id: '3', children: [] },
            { id: '5', continues: '2', children: [] },
          ],
        },
      ],
    },
  ],
  conversations: {
    '1': convView(),
    '2': convView({ id: '2', kind: 'lane' }),
    '3': convView({ id: '3', kind: 'lane' }),
    '5': convView({ id: '5', kind: 'successor', parent: '2', successor: 'handoff' }),
  },
  lanes: { '2': laneView({ id: '2', role: 'orchestrator', key: 'o' }), '3': laneView({ id: '3', parent: '2' }) },
  workers: {},
  costPerRun: { r1: 0.5 },
  costPerOrchestrator: { '2': 0.5 },
  runs: ['r1'],
  counts: { r1: { working: 0, 'needs-you': 0, idle: 0, 'host-lost': 0, other: 2, reported: 0, stale: 0, failed: 0 } },
  chains: { r1: { b: 'i1 building' } },
  inbox: [],
}

test('GET /api/tree: the conversations as a tree; run and parent reach the kernel', async () => {
  const { ask, calls } = harness({ deckTree: async () => tree })
  assert.equal(await answer(ask('/api/tree')), { status: 200, body: tree })
  assert.equal(await answer(ask('/api/tree?run=r1&parent=2')), { status: 200, body: tree })
  assert.equal(
    calls.map((c) => c.input),
    [{}, { run: 'r1', parent: '2' }],
  )
})

test('GET /api/tree: an unknown query parameter is 400, an unknown parent 404', async () => {
  const { ask, calls } = harness({ deckTree: async () => emptyTree() })
  assert.equal(await answer(ask('/api/tree?key=b')), { status: 400, body: err('usage', 'unknown query parameter key') })
  assert.equal(calls, [])
  const missing = harness({ deckTree: refuse('not_found', 'no conversation 99') })
  assert.equal(await answer(missing.ask('/api/tree?parent=99')), {
    status: 404,
    body: err('not_found', 'no conversation 99'),
  })
})

// ---- GET /api/convs/:ref ----

test('GET /api/convs/:ref: one conversation; unknown is 404, malformed 400', async () => {
  const { ask, calls } = harness({ convShow: async () => convView() })
  assert.equal(await answer(ask('/api/convs/conv-c1')), { status: 200, body: convView() })
  assert.equal(calls, [{ method: 'convShow', input: { conv: 'conv-c1' } }])
  const missing = harness({ convShow: refuse('not_found', 'no conversation 99') })
  assert.equal(await answer(missing.ask('/api/convs/99')), {
    status: 404,
    body: err('not_found', 'no conversation 99'),
  })
  const bad = harness({ convShow: refuse('usage', "'A B' is not a conversation id, name or conv-<name>") })
  assert.equal(await answer(bad.ask('/api/convs/A%20B')), {
    status: 400,
    body: err('usage', "'A B' is not a conversation id, name or conv-<name>"),
  })
  assert.equal(bad.calls, [{ method: 'convShow', input: { conv: 'A B' } }], 'the path parameter is decoded')
})

// ---- GET /api/convs/:ref/transcript ----

test('GET /api/convs/:ref/transcript: the last page, or the page after a cursor', async () => {
  const page = { entries: [{ n: 3, at: NOW, kind: 'stdout', text: 'building' }], cursor: 120, more: false }
  const { ask, calls } = harness({ convTranscript: async () => page })
  assert.equal(await answer(ask('/api/convs/7/transcript')), { status: 200, body: page })
  assert.equal(await answer(ask('/api/convs/7/transcript?cursor=60')), { status: 200, body: page })
  assert.equal(await answer(ask('/api/convs/7/transcript?cursor=0')), { status: 200, body: page })
  assert.equal(
    calls.map((c) => c.input),
    [{ conv: '7' }, { conv: '7', cursor: 60 }, { conv: '7', cursor: 0 }],
  )
})

test('GET /api/convs/:ref/transcript: a cursor that is not a whole number is 400', async () => {
  const { ask, calls } = harness({ convTranscript: async () => ({ entries: [], cursor: 0, more: false }) })
  for (const cursor of ['', '-1', '1.5', '1e3', 'x', '0x10'])
    assert.equal(
      await answer(ask(`/api/convs/7/transcript?cursor=${cursor}`)),
      { status: 400, body: err('usage', 'cursor: must be a whole number') },
      cursor,
    )
  assert.equal(await answer(ask('/api/convs/7/transcript?after=2')), {
    status: 400,
    body: err('usage', 'unknown query parameter after'),
  })
  assert.equal(await answer(ask('/api/convs/7/transcript?before=2')), {
    status: 400,
    body: err('usage', 'unknown query parameter before'),
  })
  assert.equal(calls, [])
})

// ---- POST /api/convs/:ref/tell ----

test('POST /api/convs/:ref/tell: the text (and force) reach the kernel; delivered', async () => {
  const told = { delivered: true as const, conv: convView({ id: '7' }) }
  const { ask, calls } = harness({ tell: async () => told })
  assert.equal(await answer(ask('/api/convs/7/tell', { body: { text: 'also handle empty lines' } })), {
    status: 200,
    body: told,
  })
  assert.equal(await answer(ask('/api/convs/8/tell', { body: { text: 'one more thing', force: true } })), {
    status: 200,
    body: told,
  })
  assert.equal(
    calls.map((c) => c.input),
    [
      { conv: '7', text: 'also handle empty lines' },
      { conv: '8', text: 'one more thing', force: true },
    ],
  )
})

test('POST /api/convs/:ref/tell: bad input 400; the kernel refusals 404 and 409', async () => {
  const { ask, calls } = harness({})
  assert.equal(await answer(ask('/api/convs/7/tell', { body: {} })), {
    status: 400,
    body: err('usage', 'field text is required'),
  })
  assert.equal(await answer(ask('/api/convs/7/tell', { body: { text: 5 } })), {
    status: 400,
    body: err('usage', 'text: Invalid type: Expected string but received 5'),
  })
  assert.equal(await answer(ask('/api/convs/7/tell', { body: { text: 'x', conversation: '1' } })), {
    status: 400,
    body: err('usage', 'unknown field conversation'),
  })
  assert.equal(calls, [])
  for (const [code, message, status] of [
    ['usage', 'the message is empty', 400],
    ['not_found', 'no conversation 99', 404],
    [
      'conflict',
      'conv 8 (r1-b-critic-i1) is a critic that has filed its done report; it takes no further messages',
      409,
    ],
    ['conflict', 'conv 7 (r1-b-builder-i1) is stopped; the message would not reach it', 409],
  ] as const) {
    const h = harness({ tell: refuse(code, message) })
    assert.equal(await answer(h.ask('/api/convs/7/tell', { body: { text: '' } })), { status, body: err(code, message) })
  }
})

// ---- POST /api/convs/:ref/answer ----

test('POST /api/convs/:ref/answer: allow or deny (with a message) reach the kernel', async () => {
  const answered = {
    conv: convView({ id: '9' }),
    answered: { id: 'req-1', kind: 'permission', tool: 'Bash', decision: 'allow' as const },
  }
  const { ask, calls } = harness({ convAnswer: async () => answered })
  assert.equal(await answer(ask('/api/convs/9/answer', { body: { decision: 'allow' } })), {
    status: 200,
    body: answered,
  })
  assert.equal(await answer(ask('/api/convs/9/answer', { body: { decision: 'deny', message: 'not that file' } })), {
    status: 200,
    body: answered,
  })
  assert.equal(
    calls.map((c) => c.input),
    [
      { conv: '9', decision: 'allow' },
      { conv: '9', decision: 'deny', message: 'not that file' },
    ],
  )
})

test('POST /api/convs/:ref/answer: bad input 400; nothing pending 409', async () => {
  const { ask, calls } = harness({})
  assert.equal(await answer(ask('/api/convs/9/answer', { body: { decision: 'maybe' } })), {
    status: 400,
    body: err('usage', 'decision: must be allow or deny'),
  })
  assert.equal(await answer(ask('/api/convs/9/answer', { body: {} })), {
    status: 400,
    body: err('usage', 'field decision is required'),
  })
  assert.equal(await answer(ask('/api/convs/9/answer', { body: { decision: 'allow', id: 'req-1' } })), {
    status: 400,
    body: err('usage', 'unknown field id'),
  })
  assert.equal(calls, [])
  const idle = harness({ convAnswer: refuse('conflict', 'conv 9 (c9) is idle; it waits on no answer') })
  assert.equal(await answer(idle.ask('/api/convs/9/answer', { body: { decision: 'allow' } })), {
    status: 409,
    body: err('conflict', 'conv 9 (c9) is idle; it waits on no answer'),
  })
  const question = harness({
    convAnswer: refuse('usage', 'conv 9 (c9) asks a question: answer it with allow --message <answer>'),
  })
  assert.equal(await answer(question.ask('/api/convs/9/answer', { body: { decision: 'allow' } })), {
    status: 400,
    body: err('usage', 'conv 9 (c9) asks a question: answer it with allow --message <answer>'),
  })
})

// ---- GET /api/convs/:ref/detail, /diff; POST /stop ----

test('GET /api/convs/:ref/detail: what the conversation page shows, from the kernel; errors keep their status', async () => {
  const detail = {
    conv: convView({ id: '7' }),
    reports: [],
    parked: [],
    composer: { enabled: false, reason: 'conv 7 (c7) is stopped; the message would not reach it' },
  }
  const { ask, calls } = harness({ convDetail: async () => detail })
  assert.equal(await answer(ask('/api/convs/7/detail')), { status: 200, body: detail })
  assert.equal(calls, [{ method: 'convDetail', input: { conv: '7' } }])
  const missing = harness({ convDetail: refuse('not_found', 'no conversation 99') })
  assert.equal(await answer(missing.ask('/api/convs/99/detail')), {
    status: 404,
    body: err('not_found', 'no conversation 99'),
  })
})

test('GET /api/convs/:ref/diff: the change, capped at maxBytes (1024 up to the kernel limit), bad caps 400', async () => {
  const diff = { base: 'origin/main (0123456)', stat: ' a | 1 +\n', patch: '+a\n', bytes: 3, truncated: false }
  const { ask, calls } = harness({ convDiff: async () => diff })
  assert.equal(await answer(ask('/api/convs/7/diff')), { status: 200, body: diff })
  assert.equal(await answer(ask('/api/convs/7/diff?maxBytes=800000')), { status: 200, body: diff })
  assert.equal(
    calls.map((c) => c.input),
    [{ conv: '7' }, { conv: '7', maxBytes: 800000 }],
  )
  for (const [q, message] of [
    ['maxBytes=x', 'maxBytes: must be a whole number'],
    ['maxBytes=10', 'maxBytes: Invalid value: Expected >=1024 but received 10'],
    ['maxBytes=4000001', 'maxBytes: Invalid value: Expected <=4000000 but received 4000001'],
    ['max=5', 'unknown query parameter max'],
  ])
    assert.equal(await answer(ask(`/api/convs/7/diff?${q}`)), { status: 400, body: err('usage', message) }, q)
  assert.is(calls.length, 2)
})

test('POST /api/convs/:ref/stop: the conversation stop; its refusal keeps its status', async () => {
  const { ask, calls } = harness({ convStop: async () => convView({ id: '7', activity: 'stopped' }) })
  assert.equal(await answer(ask('/api/convs/7/stop', { method: 'POST' })), {
    status: 200,
    body: convView({ id: '7', activity: 'stopped' }),
  })
  assert.equal(calls, [{ method: 'convStop', input: { conv: '7' } }])
  const gone = harness({ convStop: refuse('not_found', 'no conversation 99') })
  assert.equal(await answer(gone.ask('/api/convs/99/stop', { method: 'POST' })), {
    status: 404,
    body: err('not_found', 'no conversation 99'),
  })
})

test.run()
