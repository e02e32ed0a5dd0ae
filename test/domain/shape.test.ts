import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ConversationRecordSchema } from '../../kernel/domain/conversation.js'
import { MarkStateSchema, RunnerStateSchema } from '../../kernel/domain/runner-state.js'
import { checkShape } from '../../kernel/domain/shape.js'

const rec = { id: '12', name: 'c12', createdAt: 1, harness: 'none', cwd: '/w' }
const state = { runner: { pid: 7, start: '100' } }

const CASES: [string, Parameters<typeof checkShape>[0], unknown, string | undefined][] = [
  ['a record as the kernel writes it', ConversationRecordSchema, rec, undefined],
  ['item 12: an id that is no number', ConversationRecordSchema, { ...rec, id: 'abc' }, 'id: expected /^[1-9][0-9]{0,11}$/, got "abc"'],
  ['an id of the wrong type', ConversationRecordSchema, { ...rec, id: 12 }, 'id: expected string, got 12'],
  ['a missing cwd', ConversationRecordSchema, { ...rec, cwd: undefined }, 'cwd: missing; expected string'],
  ['lane facts with a run key of __proto__', ConversationRecordSchema, { ...rec, lane: { run: '__proto__', key: 'k', role: 'builder', dir: 'd', root: '/r', iteration: 1 } }, 'lane.run: expected /^[a-z0-9][a-z0-9-]{0,31}$/, got "__proto__"'],
  ['not a record at all', ConversationRecordSchema, [], 'id: missing'],
  ['not an object', ConversationRecordSchema, 'x', '(top level): expected Object, got "x"'],
  ['a runner state', RunnerStateSchema, { ...state, cost: { usd: 0.5, estimated: false } }, undefined],
  ['item 12: a string cost.usd', RunnerStateSchema, { ...state, cost: { usd: '0.50', estimated: false } }, 'cost.usd: expected number, got "0.50"'],
  ['an exit code of null', RunnerStateSchema, { ...state, ended: { at: 1, exitCode: null, signal: 'SIGTERM', source: 'stop' } }, undefined],
  ['a phase that is none', RunnerStateSchema, { ...state, phase: { value: 'busy', source: 'x', at: 1 } }, 'phase.value: expected ("working" | "idle" | "needs-you"), got "busy"'],
  ['a mark with no time', MarkStateSchema, { value: 'idle', source: 'self-mark' }, 'at: missing'],
]

test('checkShape: the value when it holds what it should, else the first issue on one line', () => {
  for (const [what, schema, value, problem] of CASES) {
    const c = checkShape(schema, value)
    assert.equal(c.ok ? undefined : c.problem, problem, what)
  }
})

test('checkShape keeps a field a newer writer added, so writing the value back loses nothing', () => {
  const c = checkShape(ConversationRecordSchema, { ...rec, addedLater: { x: 1 } })
  assert.ok(c.ok)
  assert.equal((c as { value: Record<string, unknown> }).value.addedLater, { x: 1 })
})

test.run()
