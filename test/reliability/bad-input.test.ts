import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestHome } from '../helpers/home.js'
import type { Setup } from '../helpers/project.js'
import { BAD_KEYS, BAD_REFS, BAD_RUNS, badInputSuite } from './bad-input-kit.js'

const kit = badInputSuite(
  'bad',
  'bad input: cases over every verb and route, each refused with one clear message, store and files unchanged, ' +
    'kernel up',
)
const { cli, http, unchanged } = kit
let h: TestHome
let s: Setup
let lane: string
test.before(() => {
  ;({ h, s, lane } = kit)
})

const start = (extra: string[]) => ['lane', 'start', '--role', 'builder', '--prompt', 'x', '--no-wait', ...extra]

test('bad keys and run keys on every verb that takes them', async () => {
  for (const k of BAD_RUNS) {
    await cli(start(['--run', k, '--key', 'k']))
    await cli(['lane', 'list', '--run', k])
    await cli(['lane', 'wait', '--run', k, '--timeout', '0'])
    await cli(['lane', 'show', '--run', k, '--key', 'b'])
  }
  for (const k of BAD_KEYS) {
    await cli(start(['--run', 'r1', '--key', k]))
    await cli(['lane', 'start', '--run', 'r1', '--for', k, '--role', 'critic', '--prompt', 'x', '--at', 'HEAD'])
    await cli(['lane', 'show', '--run', 'r1', '--key', k])
  }
  unchanged()
})

test('bad conversation references on every verb that takes one', async () => {
  const verbs: ((r: string) => string[])[] = [
    (r) => ['conv', 'show', r],
    (r) => ['conv', 'stop', r],
    (r) => ['conv', 'archive', r],
    (r) => ['conv', 'transcript', r],
    (r) => ['conv', 'answer', r, 'allow'],
    (r) => ['tell', r, 'hi'],
    (r) => ['lane', 'show', r],
    (r) => ['lane', 'stop', r],
    (r) => ['lane', 'reap', r],
    (r) => ['lane', 'wait', r, '--timeout', '0'],
    (r) => ['lane', 'list', '--parent', r],
    (r) => start(['--run', 'r1', '--key', 'k', '--parent', r]),
  ]
  for (const v of verbs) for (const r of BAD_REFS) await cli(v(r))
  // A lane reference that is not a lane, and identity that is not a lane.
  await cli(['lane', 'reap', s.root])
  await cli(['lane', 'stop', s.root])
  // SPEC.md gives these words exactly.
  assert.is(
    await cli(['lane', 'report', '--stdin'], { ...s.env, SERVICE_CONVERSATION: 'conv-../x' }),
    'svc: not inside a lane\n',
  )
  assert.is(
    await cli(['lane', 'report', '--stdin'], { ...s.env, SERVICE_CONVERSATION: '999' }),
    'svc: not inside a lane\n',
  )
  unchanged()
})

test('conflicting, missing and malformed options', async () => {
  const cases: string[][] = [
    start(['--run', 'r1', '--key', 'k', '--brief', '/nonexistent']),
    [
      'lane',
      'start',
      '--run',
      'r1',
      '--key',
      'k',
      '--role',
      'builder',
      '--prompt',
      'x',
      '--brief',
      join(h.home, '.gitconfig'),
    ],
    ['lane', 'start', '--run', 'r1', '--key', 'k', '--role', 'builder'],
    ['lane', 'start', '--run', 'r1', '--key', 'k', '--prompt', 'x'],
    ['lane', 'start', '--run', 'r1', '--key', 'k', '--role', 'boss', '--prompt', 'x'],
    ['lane', 'start', '--run', 'r1', '--role', 'builder', '--prompt', 'x'],
    ['lane', 'start', '--run', 'r1', '--key', 'a', '--for', 'b', '--role', 'critic', '--prompt', 'x'],
    ['lane', 'start', '--run', 'r1', '--role', 'critic', '--key', 'b', '--prompt', 'x'],
    ['lane', 'start', '--run', 'r1', '--for', 'nobody', '--role', 'critic', '--prompt', 'x'],
    start(['--run', 'r1', '--key', 'k', '--effort', 'max']),
    start(['--run', 'r1', '--key', 'k', '--harness', 'vim']),
    start(['--run', 'r1', '--key', 'k', '--at', 'HEAD']),
    start(['--run', 'r1', '--key', 'k', '--from', 'no-such-ref']),
    start(['--run', 'r1', '--key', 'k', '--reuse']),
    start(['--run', 'r1', '--key', 'b']),
    start(['--run', 'r1', '--key', 'k', '--project', 'nope']),
    start(['--key', 'k']),
    start(['--run', 'r1', '--key', 'k', '--run', 'r2']),
    ['lane', 'wait'],
    ['lane', 'wait', lane, '--run', 'r1'],
    ['lane', 'wait', lane, '--after', 'x'],
    ['lane', 'wait', '--run', 'r1', '--after', '1.2'],
    ['lane', 'wait', lane, '--timeout', '-1'],
    ['lane', 'wait', lane, '--timeout', 'soon'],
    ['lane', 'report'],
    ['lane', 'report', '--file', 'a', '--stdin'],
    ['lane', 'report', '--stdin', '--status', 'done-ish'],
    ['lane', 'report', '--stdin', '--defects', 'many'],
    ['lane', 'report', '--stdin', '--verdict-file', '/nonexistent'],
    ['lane', 'show'],
    ['lane', 'show', '--run', 'r1'],
    ['lane', 'show', lane, '--run', 'r1', '--key', 'b'],
    ['conv', 'mark', 'busy'],
    ['conv', 'mark', 'idle', '--reason', 'question'],
    ['conv', 'answer', lane, 'maybe'],
    ['conv', 'new', '--harness', 'shell'],
    ['conv', 'new', '--name', 'Bad'],
    ['conv', 'new', '--cwd', 'relative/dir', '--harness', 'none'],
    ['tell', lane],
    ['tell', lane, ''],
  ]
  for (const c of cases) await cli(c)
  for (const verb of [
    ['conv', 'list'],
    ['conv', 'new'],
    ['lane', 'list'],
    ['lane', 'start'],
    ['lane', 'wait'],
    ['lane', 'report'],
    ['lane', 'reap', lane],
    ['lane', 'stop', lane],
    ['lane', 'show', lane],
    ['tell', lane, 'x'],
    ['handoff'],
    ['fork'],
    ['kernel', 'status'],
    ['deck'],
    ['doctor'],
  ])
    await cli([...verb, '--no-such-option'])
  unchanged()
})

test('HTTP: malformed JSON, wrong types, unknown fields, NUL and newlines, huge bodies, bad paths and queries', async () => {
  const valid = { role: 'builder', run: 'r1', key: 'k', prompt: 'x', conversation: s.root, noWait: true }
  for (const body of ['', '{', 'nul', '[]', 'null', '"x"', '{"role":', '{role:1}', '\u0000', '{"a":1}{"b":2}'])
    await http('POST', '/api/lanes', body)
  const wrong: Record<string, unknown[]> = {
    key: [1, true, {}, [], null],
    for: [2, {}],
    role: [1, 'king', null],
    brief: [1, []],
    prompt: [1, {}],
    run: [3, []],
    parent: [4, {}],
    project: [5],
    model: [6],
    harness: ['vim', 7],
    effort: ['max', 8],
    title: [9],
    branch: [10],
    from: [11],
    at: [12],
    reuse: ['yes', 1],
    replace: ['no', 0],
    noWait: ['true', 1],
    conversation: [13, {}],
  }
  for (const [field, values] of Object.entries(wrong))
    for (const value of values) await http('POST', '/api/lanes', JSON.stringify({ ...valid, [field]: value }))
  for (const extra of [{ cwd: '/' }, { bogus: 1 }, { __proto__x: 1 }, { noWAIT: true }])
    await http('POST', '/api/lanes', JSON.stringify({ ...valid, ...extra }))
  for (const k of [...BAD_KEYS, 'a\u0000b', 'r1\u0000'])
    await http('POST', '/api/lanes', JSON.stringify({ ...valid, key: k }))
  for (const k of BAD_RUNS) await http('POST', '/api/lanes', JSON.stringify({ ...valid, run: k }))
  await http('POST', '/api/lanes', JSON.stringify({ ...valid, prompt: 'x'.repeat(5 * 1024 * 1024) }))
  await http('POST', '/api/lanes', JSON.stringify({ ...valid, key: 'b' }))
  await http('POST', '/api/lanes', JSON.stringify({ ...valid, role: 'critic', for: 'nobody', key: undefined }))
  for (const r of BAD_RUNS) await http('GET', `/api/lanes?run=${encodeURIComponent(r)}`)
  for (const k of BAD_KEYS) await http('GET', `/api/lanes?key=${encodeURIComponent(k)}`)
  for (const r of BAD_REFS) {
    await http('GET', `/api/lanes?parent=${encodeURIComponent(r)}`)
    await http('GET', `/api/lanes/${encodeURIComponent(r)}`)
    await http('POST', `/api/lanes/${encodeURIComponent(r)}/reap`, '{}')
    await http('GET', `/api/convs/${encodeURIComponent(r)}/transcript`)
  }
  await http('GET', '/api/lanes?bogus=1')
  await http('GET', '/api/lanes?run=r1&run=r2')
  await http('GET', `/api/lanes/${s.root}`)
  for (const body of ['{', '[]', '{"park":"yes"}', '{"keep":1}', '{"park":true,"force":true}'])
    await http('POST', `/api/lanes/${lane}/reap`, body)
  for (const body of ['{', '{"text":1}', '{"text":""}', '{"text":"x","force":"yes"}', '{"text":"x","extra":1}'])
    await http('POST', `/api/convs/${lane}/tell`, body)
  for (const body of ['{', '{"decision":"maybe"}', '{"decision":"allow","message":1}'])
    await http('POST', `/api/convs/${lane}/answer`, body)
  for (const body of ['{', '{"conv":1}', '{"conv":"x","extra":true}']) await http('POST', '/rpc/convShow', body)
  await http('POST', '/rpc/noSuchMethod', '{}')
  await http('POST', '/rpc/laneWait', JSON.stringify({ run: 'r1', timeoutMs: 10_000_000 }))
  unchanged()
})

test('bounded reads with a clear limit message, and no stack trace: /dev/zero, files and stdin over the limit, a body over 4 MB on the wire', async () => {
  const limit = 1_000_000
  const big = join(h.home, 'big.md')
  writeFileSync(big, 'x'.repeat(limit + 1))
  // Within the CLI's bound, but over the kernel's 4 MB once each control byte is escaped in the request's JSON.
  const wide = join(h.home, 'wide.md')
  writeFileSync(wide, '\x01'.repeat(limit))
  const over = (what: string) =>
    `svc: the ${what} is over the limit of ${limit} bytes\nhint: shorten it to at most ${limit} bytes\n`
  assert.is(await cli(start(['--run', 'r1', '--key', 'k', '--brief', '/dev/zero'])), over('brief /dev/zero'))
  assert.is(await cli(start(['--run', 'r1', '--key', 'k', '--brief', big])), over(`brief ${big} (${limit + 1} bytes)`))
  assert.is(await cli(['lane', 'report', '--file', big]), over(`report ${big} (${limit + 1} bytes)`))
  assert.is(await cli(['lane', 'report', '--file', '/dev/zero']), over('report /dev/zero'))
  assert.is(await cli(['lane', 'report', '--stdin', '--verdict-file', '/dev/zero']), over('verdict file /dev/zero'))
  const stdin = await h.svc(['lane', 'report', '--stdin'], { env: s.env, input: 'y'.repeat(limit + 1) })
  assert.is(stdin.code, 1)
  assert.is(stdin.stderr, over('standard input'))
  assert.is(
    await cli(['lane', 'report', '--file', wide], { ...s.env, SERVICE_CONVERSATION: lane }),
    'svc: request body over 4194304 bytes\n',
  )
  assert.is(
    await cli(start(['--run', 'r1', '--key', 'k', '--brief', h.home])),
    `svc: cannot read the brief ${h.home}: it is a directory\n`,
  )
  unchanged()
})

test('object keys from users are own keys only: --project __proto__ (constructor, toString) names no project', async () => {
  const projects = join(h.service, 'projects.yaml')
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.is(
      await cli(start(['--run', 'r1', '--key', 'k', '--project', key])),
      `svc: no project ${key} in ${projects}\n`,
    )
    assert.is(
      await cli(['conv', 'new', '--harness', 'none', '--project', key]),
      `svc: no project ${key} in ${projects}\n`,
    )
  }
  for (const q of ['__proto__=1', 'constructor=x', 'toString=y']) await http('GET', `/api/lanes?${q}`)
  unchanged()
})

test('control characters in --model (or any shown field) never reach the terminal raw; a newline forges no table row', async () => {
  const hostile = 'm\n99   r9/forged  builder  i1\x1b[2J\x9b\u202e'
  await h.ok(
    [
      'lane',
      'start',
      '--run',
      'r14',
      '--key',
      'k',
      '--role',
      'builder',
      '--harness',
      'none',
      '--model',
      hostile,
      '--prompt',
      'x',
      '--no-wait',
    ],
    { env: s.env },
  )
  const raw = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/
  const list = await h.ok(['lane', 'list', '--run', 'r14'])
  const rows = list.trimEnd().split('\n')
  assert.is(rows.length, 2, `a header and one row, got ${JSON.stringify(list)}`)
  assert.not.match(list, raw)
  assert.match(rows[1], 'm\\n99   r9/forged  builder  i1\\x1b[2J\\x9b\\u202e')
  const show = await h.ok(['conv', 'show', 'r14-k-builder-i1'])
  assert.not.match(show, raw)
  assert.ok(
    show.split('\n').some((l) => l.startsWith('model: m\\n99')),
    show,
  )
  const r = await h.svc(['conv', 'show', `x\x1b[2J\u202e`])
  assert.is(r.code, 1)
  assert.not.match(r.stderr, raw)
})

test.run()
