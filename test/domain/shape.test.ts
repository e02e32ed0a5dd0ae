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

/** The rulebook and the services reach nothing outside by themselves: no node:* import (the services have the
 * adapters of their context, kernel/io/adapters.ts), and in the services no clock, test hook or git of their own. */
const SRC = new URL('../../../kernel/', import.meta.url)
const NODE_IMPORT: [string, RegExp] = [
  'imports node:*',
  /\bfrom\s+['"]node:|\bimport\s*\(\s*['"]node:|\brequire\s*\(\s*['"]node:/,
]
const BANNED: Record<string, [string, RegExp][]> = {
  domain: [NODE_IMPORT],
  services: [
    NODE_IMPORT,
    ['reads the clock (Date.now, new Date())', /\bDate\.now\b|\bnew Date\(\s*\)/],
    ['imports a test hook', /from\s+['"]\.\.\/io\/(fault|test-timing)\.js['"]/],
    ['runs git itself', /^import\s+(?!type\b).*from\s+['"]\.\.\/io\/git[\w-]*\.js['"]/],
    [
      'reaches the outside past its context',
      /^import\s+(?!type\b).*from\s+['"]\.\.\/io\/(atomic-file|lane-dir|launch-intents|tools|trackers\/[\w-]+|notify-config-file|http-post|run-command|config)\.js['"]/,
    ],
  ],
}

/** The lines of `text` that break a rule, as `file:line: what`. */
const breaches = (file: string, text: string, rules: [string, RegExp][]) =>
  text
    .split('\n')
    .flatMap((line, i) => rules.filter(([, re]) => re.test(line)).map(([what]) => `${file}:${i + 1}: ${what}`))

test('no file of kernel/domain or kernel/services imports node:*; no service reads the clock, a test hook, git, files, trackers, tools or notification sinks past its context', () => {
  const found: string[] = []
  for (const [dir, rules] of Object.entries(BANNED)) {
    const files = readdirSync(new URL(`${dir}/`, SRC)).filter((f) => f.endsWith('.ts'))
    assert.ok(files.length > 5, `kernel/${dir} has its sources`)
    for (const f of files)
      found.push(...breaches(`kernel/${dir}/${f}`, readFileSync(new URL(`${dir}/${f}`, SRC), 'utf8'), rules))
  }
  assert.equal(found, [])
})

test('the shape check finds each kind of breach', () => {
  const text =
    "import { x } from 'node:fs'\nconst m = await import('node:os')\nconst t = Date.now()\nconst d = new Date()\nimport { faultPoint } from '../io/fault.js'\nimport * as git from '../io/git.js'\nimport { snapshotTree } from '../io/git-snapshot.js'\nimport type * as g from '../io/git.js'\nconst ok = new Date(at)\nimport { createFileOnce } from '../io/atomic-file.js'\nimport { identityOf } from '../io/lane-dir.js'\nimport { GhTracker } from '../io/trackers/gh.js'\nimport { postJson } from '../io/http-post.js'"
  assert.equal(breaches('f.ts', text, BANNED.services), [
    'f.ts:1: imports node:*',
    'f.ts:2: imports node:*',
    'f.ts:3: reads the clock (Date.now, new Date())',
    'f.ts:4: reads the clock (Date.now, new Date())',
    'f.ts:5: imports a test hook',
    'f.ts:6: runs git itself',
    'f.ts:7: runs git itself',
    'f.ts:10: reaches the outside past its context',
    'f.ts:11: reaches the outside past its context',
    'f.ts:12: reaches the outside past its context',
    'f.ts:13: reaches the outside past its context',
  ])
})

test.run()
