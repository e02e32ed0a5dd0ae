import { test } from 'uvu'
import * as assert from 'uvu/assert'
import * as v from 'valibot'
import type { PortCall } from '../../kernel/port/client.js'
import {
  DoctorCheckSchema,
  HostViewSchema,
  NeedsYouAskSchema,
  ReportFromSchema,
  RunCountsSchema,
  TranscriptPageSchema,
  TurnSchema,
} from '../../kernel/port/outputs.js'
import { checkedCall } from '../helpers/checked-port.js'

const status = { pid: 7, port: 4000, version: '0.1.0', home: '/h', startedAt: 1, conversations: 0 }
const answering =
  (out: unknown): PortCall =>
  async () =>
    out as never

test('an answer that holds what its output schema says is passed through as it is', async () => {
  assert.equal(await checkedCall(answering(status))('kernelStatus', {}), status)
})

test('an answer missing a field, or with one of the wrong type, fails naming the method and the field', async () => {
  const cases: [unknown, string][] = [
    [{ ...status, pid: '7' }, 'kernelStatus answered what its output schema refuses: pid: Invalid type'],
    [{ ...status, home: undefined }, 'kernelStatus answered what its output schema refuses: home: Invalid type'],
  ]
  for (const [out, message] of cases)
    try {
      await checkedCall(answering(out))('kernelStatus', {})
      assert.unreachable('the answer was let through')
    } catch (e) {
      assert.ok((e as Error).message.startsWith(message), (e as Error).message)
    }
})

const tree = {
  roots: [{ id: '1', children: [{ id: '2', children: [] }] }],
  conversations: {},
  lanes: {},
  workers: {},
  costPerRun: {},
  costPerOrchestrator: {},
  runs: ['r1'],
  counts: {},
  chains: { r1: { b: 'i1 built' } },
  inbox: [{ id: '2', name: 'r1-b-builder-i1', since: 5, ask: { kind: 'mark' } }],
}

test("the deck's answers are held to their schemas: the tree at every depth, the inbox, a diff of either kind", async () => {
  assert.equal(await checkedCall(answering(tree))('deckTree', {}), tree)
  const diff = { base: 'origin/main', stat: '', patch: '', bytes: 0, truncated: false }
  assert.equal(await checkedCall(answering(diff))('convDiff', { conv: '2' }), diff)
  assert.equal(await checkedCall(answering({ unavailable: 'no worktree' }))('convDiff', { conv: '2' }), {
    unavailable: 'no worktree',
  })
  const cases: [unknown, 'deckTree' | 'convDiff', string][] = [
    [{ ...tree, roots: [{ id: '1', children: [{ id: '2' }] }] }, 'deckTree', 'roots.0.children.0.children'],
    [{ ...tree, inbox: [{ ...tree.inbox[0], since: undefined }] }, 'deckTree', 'inbox.0.since'],
    [{ ...tree, chains: { r1: { b: 3 } } }, 'deckTree', 'chains.r1.b'],
    [{ base: 'origin/main', stat: '' }, 'convDiff', ''],
  ]
  for (const [out, method, field] of cases)
    try {
      await checkedCall(answering(out))(method, method === 'deckTree' ? {} : { conv: '2' })
      assert.unreachable('the answer was let through')
    } catch (e) {
      const message = (e as Error).message
      assert.ok(message.startsWith(`${method} answered what its output schema refuses: ${field}`), message)
    }
})

const issuesOf = (schema: v.GenericSchema, value: unknown) => {
  const c = v.safeParse(schema, value)
  return c.success ? [] : c.issues.map((i) => i.path?.map((p) => String(p.key)).join('.') ?? '')
}
const counts = { working: 1, 'needs-you': 0, idle: 0, 'host-lost': 0, other: 0, reported: 1, stale: 0, failed: 0 }
const host = {
  name: 'a',
  ssh: 'svc@10.0.0.2',
  lanesRoot: '/srv/lanes',
  hostKey: 'SHA256:x',
  facts: {
    os: 'Linux',
    home: '/home/svc',
    runner: { version: '1', installed: true, running: { pid: 9, version: '1' } },
  },
}
// Each piece the rulebook types: one answer it gives, and the same answer broken in one field (a union of two
// shapes, as who filed a report, is refused as a whole).
const pieces: [string, v.GenericSchema, unknown, unknown, string][] = [
  ['turn', TurnSchema, { started: 1, ended: 2 }, { started: '1' }, 'started'],
  ['doctor check', DoctorCheckSchema, { name: 'git', ok: true, detail: 'git 2.43' }, { name: 'git', ok: 1 }, 'ok'],
  [
    'host',
    HostViewSchema,
    host,
    { ...host, facts: { ...host.facts, runner: { version: '1' } } },
    'facts.runner.installed',
  ],
  [
    'host with a problem',
    HostViewSchema,
    { ...host, facts: undefined, problem: { message: 'no answer' } },
    { ...host, problem: {} },
    'problem.message',
  ],
  [
    'report from a lane',
    ReportFromSchema,
    { id: '3', name: 'r1-b', run: 'r1', key: 'b', role: 'builder', iteration: 1 },
    { id: '3', name: 'r1-b', role: 'builder', iteration: 1 },
    '',
  ],
  [
    'report from a worker',
    ReportFromSchema,
    { id: '4', name: 'w', role: 'worker', iteration: 1, issue: 'local#1' },
    { id: '4', name: 'w', role: 'worker', iteration: 1 },
    '',
  ],
  [
    'transcript page',
    TranscriptPageSchema,
    { entries: [{ n: 1, at: 2, kind: 'user', text: 'hi' }], cursor: 40, more: false },
    { entries: [{ n: 1, at: 2, kind: 'user' }], cursor: 40, more: false },
    'entries.0.text',
  ],
  [
    'question',
    NeedsYouAskSchema,
    { kind: 'question', questions: [{ question: 'Which?', options: [{ label: 'a' }] }] },
    { kind: 'question', questions: [{ question: 'Which?', options: ['a'] }] },
    'questions.0.options.0',
  ],
  [
    'permission',
    NeedsYouAskSchema,
    { kind: 'permission', tool: 'Bash', input: 'ls' },
    { kind: 'permission', input: 'ls' },
    'tool',
  ],
  ['ask of no known kind', NeedsYouAskSchema, { kind: 'mark' }, { kind: 'guess' }, 'kind'],
  ['run counts', RunCountsSchema, counts, { ...counts, 'host-lost': undefined }, 'host-lost'],
]

test('each piece the rulebook types is held to its schema: its answer passes, one wrong field is named', () => {
  for (const [what, schema, good, bad, field] of pieces) {
    assert.equal(issuesOf(schema, good), [], what)
    assert.ok(issuesOf(schema, bad).includes(field), `${what}: ${JSON.stringify(issuesOf(schema, bad))}`)
  }
})

test('a host list answered with a host missing its ssh fails naming the host and the field', async () => {
  try {
    await checkedCall(answering([host, { ...host, ssh: undefined }]))('hostList', {})
    assert.unreachable('the answer was let through')
  } catch (e) {
    assert.is(
      (e as Error).message,
      'hostList answered what its output schema refuses: 1.ssh: Invalid type: Expected string but received undefined',
    )
  }
})

test.run()
