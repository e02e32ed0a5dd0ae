import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MAX_BODY } from '../../handlers/app.js'
import type { ReapResult } from '../../kernel/port/port.js'
import { answer, convView, err, harness, laneView, refuse } from './kit.js'

const started = {
  lane: convView({ id: '7', name: 'r1-b-builder-i1', kind: 'lane' }),
  line: 'Lane r1/b builder i1: conv 7 (r1-b-builder-i1) in /l/r1-b',
}

// ---- POST /api/lanes ----

test('POST /api/lanes: 201 with the kernel answer; the fields of svc lane start in camelCase plus conversation reach the kernel as given', async () => {
  const { ask, calls } = harness({ laneStart: async () => started })
  const all = {
    key: 'b',
    role: 'builder',
    prompt: 'make it',
    run: 'r1',
    parent: '1',
    project: 'app',
    model: 'm',
    harness: 'shell',
    effort: 'high',
    title: 'the b lane',
    branch: 'feat/b',
    from: 'origin/dev',
    reuse: false,
    replace: true,
    noWait: true,
    conversation: '1',
  }
  assert.equal(await answer(ask('/api/lanes', { body: all })), { status: 201, body: started })
  const critic = { for: 'b', role: 'critic', brief: '# judge it\n', at: 'abc1234', conversation: '1' }
  assert.is((await ask('/api/lanes', { body: critic })).status, 201)
  assert.equal(calls, [
    { method: 'laneStart', input: all },
    { method: 'laneStart', input: critic },
  ])
})

test('POST /api/lanes: bad input is 400 naming the field, and the kernel is not asked', async () => {
  const { ask, calls } = harness({ laneStart: async () => started })
  const cases: [unknown, string][] = [
    [{ key: 'b', prompt: 'x', conversation: '1' }, 'field role is required'],
    [
      { key: 'b', role: 'boss', prompt: 'x', conversation: '1' },
      'role: must be one of builder, critic, verifier, play, orchestrator',
    ],
    [
      { key: 'b', role: 'builder', prompt: 'x', conversation: '1', harness: 'vim' },
      'harness: must be one of claude, codex, shell, none',
    ],
    [
      { key: 'b', role: 'builder', prompt: 'x', conversation: '1', effort: 'max' },
      'effort: must be one of low, medium, high',
    ],
    [
      { key: 'b', role: 'builder', prompt: 'x', conversation: '1', noWait: 'yes' },
      'noWait: Invalid type: Expected boolean but received "yes"',
    ],
    [{ key: 'b', role: 'builder', prompt: 'x', conversation: '1', no_wait: true }, 'unknown field no_wait'],
    [{ key: 'b', role: 'builder', prompt: 'x', conversation: '1', cwd: '/tmp' }, 'unknown field cwd'],
    [{ key: 'b', role: 'builder', prompt: 'x', conversation: '' }, 'conversation: must not be empty'],
    [{ key: 'b', role: 'builder', prompt: 'x' }, 'conversation is required: the id of the launching conversation'],
    [{ key: 7, role: 'builder', prompt: 'x', conversation: '1' }, 'key: Invalid type: Expected string but received 7'],
    [
      { key: 'b', role: 'builder', prompt: 'x', conversation: '1', title: 't'.repeat(201) },
      'title: must be at most 200 characters',
    ],
    [[], 'the request body must be a JSON object'],
    [null, 'the request body must be a JSON object'],
    ['builder', 'the request body must be a JSON object'],
  ]
  for (const [body, message] of cases)
    assert.equal(await answer(ask('/api/lanes', { body })), { status: 400, body: err('usage', message) }, message)
  for (const raw of ['', '{', 'role=builder'])
    assert.equal(
      await answer(ask('/api/lanes', { raw })),
      { status: 400, body: err('usage', 'the request body is not JSON') },
      raw,
    )
  assert.equal(calls, [])
})

test('POST /api/lanes: the refusals of the launch rules keep their status: 400, 403, 404, 409', async () => {
  const cases: [Parameters<typeof refuse>, number][] = [
    [['usage', '--run is required when the launcher is a root conversation'], 400],
    [['forbidden', 'refused: a builder lane cannot launch lanes'], 403],
    [['not_found', 'no conversation 99'], 404],
    [['not_found', 'refused: no builder b in run r1'], 404],
    [['conflict', 'lane r1/b builder i1 is live (conv 7); pass --replace to stop it and launch anew'], 409],
    [['conflict', 'builder b i1 has no done report; pass --at <sha>'], 409],
  ]
  for (const [[code, message], status] of cases) {
    const { ask } = harness({ laneStart: refuse(code, message) })
    assert.equal(
      await answer(ask('/api/lanes', { body: { key: 'b', role: 'builder', prompt: 'x', conversation: '1' } })),
      { status, body: err(code, message) },
    )
  }
})

test('POST /api/lanes: a hint travels with the error; an unexpected failure is 500 internal', async () => {
  const { ask } = harness({
    laneStart: refuse('not_found', 'no conversation 99', 'svc conv list shows the conversations'),
  })
  assert.equal(
    await answer(ask('/api/lanes', { body: { key: 'b', role: 'builder', prompt: 'x', conversation: '99' } })),
    {
      status: 404,
      body: {
        error: { code: 'not_found', message: 'no conversation 99', hint: 'svc conv list shows the conversations' },
      },
    },
  )
  const broken = harness({
    laneStart: async () => {
      throw new TypeError('x is undefined')
    },
  })
  assert.equal(
    await answer(broken.ask('/api/lanes', { body: { key: 'b', role: 'builder', prompt: 'x', conversation: '1' } })),
    {
      status: 500,
      body: err('internal', 'internal error: x is undefined'),
    },
  )
})

test('POST /api/lanes: a body over the limit is 413', async () => {
  const { ask, calls } = harness({ laneStart: async () => started })
  const r = await answer(
    ask('/api/lanes', { body: { key: 'b', role: 'builder', prompt: 'x'.repeat(MAX_BODY), conversation: '1' } }),
  )
  assert.equal(r, { status: 413, body: err('too_large', `request body over ${MAX_BODY} bytes`) })
  assert.equal(calls, [])
})

// ---- GET /api/lanes ----

test('GET /api/lanes: every lane, each with its activity; archived lanes carry activity stopped', async () => {
  const lanes = [
    laneView(),
    laneView({
      id: '8',
      name: 'r1-b-critic-i1',
      role: 'critic',
      archived: true,
      activity: 'stopped',
      evidence: { source: 'archive', at: 5 },
    }),
  ]
  const { ask, calls } = harness({ laneList: async () => lanes })
  const r = await answer(ask('/api/lanes'))
  assert.equal(r, { status: 200, body: lanes })
  assert.equal(
    (r.body as typeof lanes).map((l) => l.activity),
    ['working', 'stopped'],
  )
  assert.equal(calls, [{ method: 'laneList', input: {} }])
})

test('GET /api/lanes?run&parent&key: the filters reach the kernel', async () => {
  const { ask, calls } = harness({ laneList: async () => [] })
  assert.equal(await answer(ask('/api/lanes?run=r1&parent=conv-c1&key=b')), { status: 200, body: [] })
  assert.equal(await answer(ask('/api/lanes?run=r2')), { status: 200, body: [] })
  assert.equal(
    calls.map((c) => c.input),
    [{ run: 'r1', parent: 'conv-c1', key: 'b' }, { run: 'r2' }],
  )
})

test('GET /api/lanes: an unknown or repeated query parameter, or an empty parent, is 400; the kernel refusals keep their status', async () => {
  const { ask, calls } = harness({ laneList: async () => [] })
  assert.equal(await answer(ask('/api/lanes?role=builder')), {
    status: 400,
    body: err('usage', 'unknown query parameter role'),
  })
  assert.equal(await answer(ask('/api/lanes?run=r1&run=r2')), {
    status: 400,
    body: err('usage', 'query parameter run given twice'),
  })
  assert.equal(await answer(ask('/api/lanes?parent=')), {
    status: 400,
    body: err('usage', 'parent: must not be empty'),
  })
  assert.equal(calls, [])
  const bad = harness({ laneList: refuse('usage', "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$") })
  assert.equal(await answer(bad.ask('/api/lanes?run=R1')), {
    status: 400,
    body: err('usage', "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$"),
  })
  const missing = harness({ laneList: refuse('not_found', 'no conversation 99') })
  assert.equal(await answer(missing.ask('/api/lanes?parent=99')), {
    status: 404,
    body: err('not_found', 'no conversation 99'),
  })
})

// ---- GET /api/lanes/:name ----

test('GET /api/lanes/:name: one lane by id, name or conv-<name>', async () => {
  const { ask, calls } = harness({ laneGet: async () => laneView() })
  for (const name of ['7', 'r1-b-builder-i1', 'conv-r1-b-builder-i1'])
    assert.equal(await answer(ask(`/api/lanes/${name}`)), { status: 200, body: laneView() })
  assert.equal(
    calls.map((c) => c.input),
    [{ lane: '7' }, { lane: 'r1-b-builder-i1' }, { lane: 'conv-r1-b-builder-i1' }],
  )
})

test('GET /api/lanes/:name: an unknown lane or a conversation that is not a lane is 404; a malformed reference 400', async () => {
  for (const [code, message, status] of [
    ['not_found', 'no conversation nope', 404],
    ['not_found', 'conv 1 (c1) is not a lane', 404],
    ['usage', "'Bad Name' is not a conversation id, name or conv-<name>", 400],
  ] as const) {
    const { ask } = harness({ laneGet: refuse(code, message) })
    assert.equal(await answer(ask('/api/lanes/x')), { status, body: err(code, message) })
  }
})

// ---- POST /api/lanes/:name/reap ----

const reaped: ReapResult = {
  lane: laneView({ archived: true, activity: 'stopped', evidence: { source: 'archive', at: 9 } }),
  removed: '/home/u/src/app-lanes/r1-b',
  parked: {
    patch: '/home/u/.service/agents/conv-r1-b-builder-i1/parked-2026.patch',
    ref: 'refs/svc/parked/r1-b-builder-i1',
    paths: 2,
  },
  warnings: [],
  archived: true,
}

test('POST /api/lanes/:name/reap: park and keep reach the kernel; the reap result comes back', async () => {
  const { ask, calls } = harness({ laneReap: async () => reaped })
  assert.equal(await answer(ask('/api/lanes/7/reap', { body: { park: true, keep: false } })), {
    status: 200,
    body: reaped,
  })
  assert.equal(await answer(ask('/api/lanes/r1-b-builder-i1/reap', { body: {} })), { status: 200, body: reaped })
  assert.equal(await answer(ask('/api/lanes/7/reap', { body: { keep: true } })), { status: 200, body: reaped })
  assert.equal(
    calls.map((c) => c.input),
    [{ lane: '7', park: true, keep: false }, { lane: 'r1-b-builder-i1' }, { lane: '7', keep: true }],
  )
})

test('POST /api/lanes/:name/reap: bad input is 400; refusals 404 and 409', async () => {
  const { ask, calls } = harness({ laneReap: async () => reaped })
  assert.equal(await answer(ask('/api/lanes/7/reap', { body: { park: 'yes' } })), {
    status: 400,
    body: err('usage', 'park: Invalid type: Expected boolean but received "yes"'),
  })
  assert.equal(await answer(ask('/api/lanes/7/reap', { body: { force: true } })), {
    status: 400,
    body: err('usage', 'unknown field force'),
  })
  assert.equal(await answer(ask('/api/lanes/7/reap', { body: { lane: '8' } })), {
    status: 400,
    body: err('usage', 'unknown field lane'),
  })
  assert.equal(await answer(ask('/api/lanes/7/reap', { raw: 'park' })), {
    status: 400,
    body: err('usage', 'the request body is not JSON'),
  })
  assert.equal(await answer(ask('/api/lanes/7/reap', { body: [true] })), {
    status: 400,
    body: err('usage', 'the request body must be a JSON object'),
  })
  assert.equal(calls, [])
  for (const [code, message, status] of [
    ['not_found', 'no conversation 99', 404],
    [
      'conflict',
      'refused: the worktree /l/r1-b has uncommitted changes (2 paths); pass --park to save them first',
      409,
    ],
    ['conflict', 'refused: conv 7 (r1-b-builder-i1) is already reaped and archived', 409],
  ] as const) {
    const h = harness({ laneReap: refuse(code, message) })
    assert.equal(await answer(h.ask('/api/lanes/99/reap', { body: {} })), { status, body: err(code, message) })
  }
})

test('a GET on the reap route, a method no route takes, or a path under /api/lanes that does not exist: 404 in the error format', async () => {
  const { ask, calls } = harness({})
  assert.equal(await answer(ask('/api/lanes/7/reap')), {
    status: 404,
    body: err('not_found', 'no route GET /api/lanes/7/reap'),
  })
  assert.equal(await answer(ask('/api/lanes/7', { method: 'DELETE' })), {
    status: 404,
    body: err('not_found', 'no route DELETE /api/lanes/7'),
  })
  assert.equal(await answer(ask('/api/lanes/7/stop/now', { body: {} })), {
    status: 404,
    body: err('not_found', 'no route POST /api/lanes/7/stop/now'),
  })
  assert.equal(calls, [])
})

test.run()
