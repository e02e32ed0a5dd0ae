import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ConversationRecordSchema } from '../../kernel/domain/conversation.js'
import { MarkStateSchema, RunnerStateSchema } from '../../kernel/domain/runner-state.js'
import { checkShape } from '../../kernel/domain/shape.js'

const rec = { id: '12', name: 'c12', createdAt: 1, harness: 'none', cwd: '/w' }
const state = { runner: { pid: 7, start: '100' } }

const CASES: [string, Parameters<typeof checkShape>[0], unknown, string | undefined][] = [
  ['a record as the kernel writes it', ConversationRecordSchema, rec, undefined],
  [
    'an id that is no number',
    ConversationRecordSchema,
    { ...rec, id: 'abc' },
    'id: expected /^[1-9][0-9]{0,11}$/, got "abc"',
  ],
  ['an id of the wrong type', ConversationRecordSchema, { ...rec, id: 12 }, 'id: expected string, got 12'],
  ['a missing cwd', ConversationRecordSchema, { ...rec, cwd: undefined }, 'cwd: missing; expected string'],
  [
    'lane facts with a run key of __proto__',
    ConversationRecordSchema,
    { ...rec, lane: { run: '__proto__', key: 'k', role: 'builder', dir: 'd', root: '/r', iteration: 1 } },
    'lane.run: expected /^[a-z0-9][a-z0-9-]{0,31}$/, got "__proto__"',
  ],
  ['not a record at all', ConversationRecordSchema, [], 'id: missing'],
  ['not an object', ConversationRecordSchema, 'x', '(top level): expected Object, got "x"'],
  ['a runner state', RunnerStateSchema, { ...state, cost: { usd: 0.5, estimated: false } }, undefined],
  [
    'a string cost.usd',
    RunnerStateSchema,
    { ...state, cost: { usd: '0.50', estimated: false } },
    'cost.usd: expected number, got "0.50"',
  ],
  [
    'an exit code of null',
    RunnerStateSchema,
    { ...state, ended: { at: 1, exitCode: null, signal: 'SIGTERM', source: 'stop' } },
    undefined,
  ],
  [
    'a phase that is none',
    RunnerStateSchema,
    { ...state, phase: { value: 'busy', source: 'x', at: 1 } },
    'phase.value: expected ("working" | "idle" | "needs-you"), got "busy"',
  ],
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

/** A service reads no clock of its own: it is given `now` by its context (the import rules of the layers are
 * checked by the import linter, .dependency-cruiser.cjs). */
const SERVICES = new URL('../../../kernel/services/', import.meta.url)
const CLOCK = /\bDate\.now\b|\bnew Date\(\s*\)/

/** The lines of `text` that read the clock, as `file:line`. */
const clockReads = (file: string, text: string) =>
  text.split('\n').flatMap((line, i) => (CLOCK.test(line) ? [`${file}:${i + 1}`] : []))

test('no service reads the clock (Date.now, new Date())', () => {
  const files = readdirSync(SERVICES).filter((f) => f.endsWith('.ts'))
  assert.ok(files.length > 5, 'kernel/services has its sources')
  assert.equal(
    files.flatMap((f) => clockReads(`kernel/services/${f}`, readFileSync(new URL(f, SERVICES), 'utf8'))),
    [],
  )
})

test('the clock check finds Date.now and new Date(), not a date made from a time', () => {
  assert.equal(clockReads('f.ts', 'const t = Date.now()\nconst d = new Date()\nconst ok = new Date(at)'), [
    'f.ts:1',
    'f.ts:2',
  ])
})

test.run()
