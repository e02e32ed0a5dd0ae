import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { PortOutputs, WorkerView } from '../../kernel/port/port.js'
import { answer, convView, err, harness, refuse } from './kit.js'

/** The workers API (POST /api/workers, GET /api/workers?issue&parent, GET /api/workers/:name, POST
 * /api/workers/:name/reap) on a fake kernel: what reaches the kernel, what comes back, every bad input refused. */

const started = {
  worker: convView({ id: '7', name: 'w-local-1-i1', kind: 'worker' }),
  line: 'Worker local:1 i1: conv 7 (w-local-1-i1) in /l/w-local-1',
}
const view: WorkerView = {
  id: '7',
  name: 'w-local-1-i1',
  parent: '1',
  issue: 'local:1',
  starter: '1',
  iteration: 1,
  cwd: '/l/w-local-1',
  branch: 'worker/local-1',
  post: false,
  harness: 'shell',
  createdAt: 1,
  archived: false,
  activity: 'working',
  evidence: { source: 'stream', at: 2 },
  report: { seq: 1, status: 'done', at: 3 },
}

test('POST /api/workers: 201 with the kernel answer; the options of svc worker run in camelCase reach the kernel as given', async () => {
  const { ask, calls } = harness({ workerRun: async () => started })
  const all = {
    issue: 'local:1',
    prompt: 'fix it',
    project: 'app',
    harness: 'shell',
    model: 'm',
    effort: 'low',
    from: 'origin/dev',
    branch: 'fix/1',
    title: 't',
    replace: true,
    reuse: false,
    post: true,
    allowClosed: true,
    noWait: true,
    conversation: '1',
  }
  assert.equal(await answer(ask('/api/workers', { body: all })), { status: 201, body: started })
  assert.equal(calls, [{ method: 'workerRun', input: all }])
})

test('POST /api/workers: bad input is 400 naming the field, and the kernel is not asked; refusals keep their status', async () => {
  const { ask, calls } = harness({ workerRun: async () => started })
  const cases: [unknown, string][] = [
    [{ prompt: 'x', conversation: '1' }, 'field issue is required'],
    [{ issue: '', prompt: 'x', conversation: '1' }, 'issue: must not be empty'],
    [{ issue: 'local:1', prompt: 'x' }, 'conversation is required: the id of the launching conversation'],
    [
      { issue: 'local:1', prompt: 'x', conversation: '1', harness: 'vim' },
      'harness: must be one of claude, codex, shell, none',
    ],
    [
      { issue: 'local:1', prompt: 'x', conversation: '1', post: 'yes' },
      'post: Invalid type: Expected boolean but received "yes"',
    ],
    [{ issue: 'local:1', prompt: 'x', conversation: '1', cwd: '/x' }, 'unknown field cwd'],
    [{ issue: 'local:1', prompt: 'x', conversation: '1', role: 'builder' }, 'unknown field role'],
    [[], 'the request body must be a JSON object'],
  ]
  for (const [body, message] of cases)
    assert.equal(await answer(ask('/api/workers', { body })), { status: 400, body: err('usage', message) }, message)
  assert.equal(calls, [])
  for (const [code, message, status] of [
    [
      'forbidden',
      'refused: a builder lane cannot run workers; only a root conversation or an orchestrator lane can',
      403,
    ],
    ['conflict', 'refused: issue local:2 is closed; pass --allow-closed to run a worker on it anyway', 409],
    ['not_found', 'no issue local:9 in project sample', 404],
  ] as const) {
    const r = harness({ workerRun: refuse(code, message) })
    assert.equal(await answer(r.ask('/api/workers', { body: { issue: 'local:1', prompt: 'x', conversation: '1' } })), {
      status,
      body: err(code, message),
    })
  }
})

test('GET /api/workers?issue&parent: the filters reach the kernel; unknown parameters are 400', async () => {
  const { ask, calls } = harness({ workerList: async () => [view] })
  assert.equal(await answer(ask('/api/workers')), { status: 200, body: [view] })
  assert.equal(await answer(ask('/api/workers?issue=local:1&parent=1&project=app')), { status: 200, body: [view] })
  assert.equal(
    calls.map((c) => c.input),
    [{}, { issue: 'local:1', parent: '1', project: 'app' }],
  )
  assert.equal(await answer(ask('/api/workers?cwd=/x')), {
    status: 400,
    body: err('usage', 'unknown query parameter cwd'),
  })
  assert.equal(await answer(ask('/api/workers?issue=a&issue=b')), {
    status: 400,
    body: err('usage', 'query parameter issue given twice'),
  })
  assert.is(calls.length, 2)
})

test('GET /api/workers/:name: one worker; not a worker is 404', async () => {
  const { ask, calls } = harness({ workerGet: async () => view })
  assert.equal(await answer(ask('/api/workers/w-local-1-i1')), { status: 200, body: view })
  assert.equal(
    calls.map((c) => c.input),
    [{ worker: 'w-local-1-i1' }],
  )
  const notOne = harness({ workerGet: refuse('not_found', 'conv 1 (c1) is not a worker') })
  assert.equal(await answer(notOne.ask('/api/workers/1')), {
    status: 404,
    body: err('not_found', 'conv 1 (c1) is not a worker'),
  })
})

test('POST /api/workers/:name/reap: park and keep reach the kernel; bad input 400', async () => {
  const reaped: PortOutputs['workerReap'] = {
    worker: { ...view, archived: true, activity: 'stopped' },
    removed: '/l/w-local-1',
    warnings: [],
    archived: true,
  }
  const { ask, calls } = harness({ workerReap: async () => reaped })
  assert.equal(await answer(ask('/api/workers/7/reap', { body: { park: true } })), { status: 200, body: reaped })
  assert.equal(
    calls.map((c) => c.input),
    [{ worker: '7', park: true }],
  )
  assert.equal(await answer(ask('/api/workers/7/reap', { body: { worker: '8' } })), {
    status: 400,
    body: err('usage', 'unknown field worker'),
  })
  assert.equal(await answer(ask('/api/workers/7/reap', { body: { keep: 1 } })), {
    status: 400,
    body: err('usage', 'keep: Invalid type: Expected boolean but received 1'),
  })
  assert.is(calls.length, 1)
})

test.run()
