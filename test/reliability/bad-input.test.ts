import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, until } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { recordFigure } from './figures.js'
import { snapshot } from './snapshot.js'

const BAD_KEYS = ['UP', 'a b', '.x', '_x', 'a/b', '../x', 'x'.repeat(41), 'a\nb', 'ü', 'a;b', '$(id)', 'a\tb', ' a', 'a*', 'a"b']
const BAD_RUNS = [...BAD_KEYS, 'a.b', 'a_b', 'x'.repeat(33)]
const BAD_REFS = ['conv-../x', '../x', '/etc/passwd', 'conv-', 'CONV-A', 'a b', 'x'.repeat(201), 'conv-a/b', '..', 'a\nb', 'conv-.hidden', '%2e%2e']

let h: TestHome
let s: Setup
let lane: string
let kernelPid: number
let before: string
let cases = 0
const roots = () => [h.service, s.lanesRoot]

test.before(async () => {
  h = new TestHome('bad')
  s = await setupProject(h)
  // Lane r1/b stays live for the whole suite through its harness: a lane that is only starting counts as live for
  // 3 minutes, which the suite outlasts on a loaded machine (and then a second start of r1/b is no longer refused).
  const out = await h.ok(['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--harness', 'shell', '--prompt', 'exec sleep 3600', '--no-wait'], { env: s.env })
  lane = /conv (\d+)/.exec(out)![1]
  await until(async () => JSON.parse(await h.ok(['conv', 'show', lane, '--json'])).activity === 'working', 'lane r1/b working')
  // An open issue for the worker verbs to be refused on (before the snapshot: the suite changes nothing after it).
  await h.ok(['issue', 'new', '--project', s.project.key, '--title', 'bad input'])
  kernelPid = h.kernelFile()!.pid
  // Once its runner has written what it writes at the harness's start, nothing changes until the suite ends.
  before = (await until(async () => {
    const first = snapshot(roots(), s.project.checkout)
    await new Promise((r) => setTimeout(r, 200))
    return snapshot(roots(), s.project.checkout) === first ? first : undefined
  }, 'the files of lane r1/b settled'))!
})
test.after(async () => {
  recordFigure('bad input: cases over every verb and route, each refused with one clear message, store and files unchanged, kernel up', `${cases} cases`)
  await h.stop()
})

async function cli(args: string[], env: Record<string, string | undefined> = s.env): Promise<string> {
  const r = await h.svc(args, { env })
  const what = JSON.stringify(args)
  assert.is(r.code, 1, `${what} exits 1: ${r.stderr}`)
  assert.is(r.stdout, '', `${what} prints nothing on stdout`)
  const lines = r.stderr.trimEnd().split('\n')
  assert.ok(lines[0].startsWith('svc: ') && lines[0].length > 8, `${what}: one clear line, got ${JSON.stringify(r.stderr)}`)
  assert.ok(lines.length === 1 || (lines.length === 2 && lines[1].startsWith('hint: ')), `${what}: one line (and a hint), got ${JSON.stringify(r.stderr)}`)
  cases++
  return r.stderr
}

async function http(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const k = h.kernelFile()!
  const res = await fetch(`http://127.0.0.1:${k.port}${path}`, { method, headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json', ...headers }, body })
  const what = `${method} ${path} ${body?.slice(0, 60) ?? ''}`
  assert.ok(res.status >= 400 && res.status < 500, `${what}: a 4xx, got ${res.status}`)
  const json = (await res.json()) as { error?: { code?: string; message?: string } }
  assert.type(json.error?.code, 'string', what)
  assert.ok(json.error?.message && !json.error.message.includes('\n'), `${what}: one clear message, got ${JSON.stringify(json)}`)
  cases++
}

const unchanged = () => {
  assert.is(snapshot(roots(), s.project.checkout), before, 'the store and the file system are unchanged')
  assert.ok(alive(kernelPid) && h.kernelFile()!.pid === kernelPid, 'the kernel stays up')
}

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
  assert.is(await cli(['lane', 'report', '--stdin'], { ...s.env, SERVICE_CONVERSATION: 'conv-../x' }), 'svc: not inside a lane\n')
  assert.is(await cli(['lane', 'report', '--stdin'], { ...s.env, SERVICE_CONVERSATION: '999' }), 'svc: not inside a lane\n')
  unchanged()
})

test('conflicting, missing and malformed options', async () => {
  const cases: string[][] = [
    start(['--run', 'r1', '--key', 'k', '--brief', '/nonexistent']),
    ['lane', 'start', '--run', 'r1', '--key', 'k', '--role', 'builder', '--prompt', 'x', '--brief', join(h.home, '.gitconfig')],
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
  for (const verb of [['conv', 'list'], ['conv', 'new'], ['lane', 'list'], ['lane', 'start'], ['lane', 'wait'], ['lane', 'report'], ['lane', 'reap', lane], ['lane', 'stop', lane], ['lane', 'show', lane], ['tell', lane, 'x'], ['handoff'], ['fork'], ['kernel', 'status'], ['deck'], ['doctor']])
    await cli([...verb, '--no-such-option'])
  unchanged()
})

test('workers: bad issue references, conversation references, options and bodies on every worker verb and route', async () => {
  const BAD_ISSUES = ['local:0', 'local:x', 'local:', 'gh:a/b', 'gh:-a/b#1', 'gh:a/b..c#1', 'gh:a+b/c#1', '#0', '#x', 'nope', 'a\nb', 'x'.repeat(201)]
  const run = (issue: string, extra: string[] = []) => ['worker', 'run', issue, '--prompt', 'x', '--no-wait', '--project', s.project.key, ...extra]
  for (const i of BAD_ISSUES) {
    await cli(run(i))
    await cli(['worker', 'list', '--issue', i, '--project', s.project.key])
    await cli(['worker', 'wait', '--issue', i, '--project', s.project.key, '--timeout', '0'])
  }
  const verbs: ((r: string) => string[])[] = [
    (r) => ['worker', 'show', r],
    (r) => ['worker', 'stop', r],
    (r) => ['worker', 'reap', r],
    (r) => ['worker', 'wait', r, '--timeout', '0'],
    (r) => ['worker', 'wait', '--parent', r, '--timeout', '0'],
    (r) => ['worker', 'list', '--parent', r],
  ]
  for (const v of verbs) for (const r of BAD_REFS) await cli(v(r))
  for (const notWorker of [s.root, lane]) for (const v of verbs.slice(0, 4)) await cli(v(notWorker))
  const options: string[][] = [
    ['worker', 'run', 'local:1', '--no-wait'],
    ['worker', 'run', 'local:1', '--prompt', 'x', '--brief', join(h.home, '.gitconfig')],
    ['worker', 'run', 'local:1', '--brief', '/nonexistent'],
    run('local:1', ['--harness', 'vim']),
    run('local:1', ['--effort', 'max']),
    run('local:1', ['--reuse']),
    run('local:1', ['--from', 'no-such-ref']),
    ['worker', 'run', 'local:1', '--prompt', 'x', '--project', 'nope'],
    ['worker', 'wait'],
    ['worker', 'wait', lane, '--issue', 'local:1'],
    ['worker', 'wait', '--issue', 'local:1', '--project', s.project.key, '--after', '1.2'],
    ['worker', 'wait', '--parent', s.root, '--after', 'x'],
    ['worker', 'wait', '--parent', s.root, '--timeout', 'soon'],
    ['worker', 'report'],
    ['worker', 'report', '--file', 'a', '--stdin'],
    ['worker', 'report', '--stdin', '--status', 'done-ish'],
  ]
  for (const c of options) await cli(c)
  // An issue that does not exist, and `#<n>` on a project whose origin is not on GitHub.
  await cli(run('local:9'))
  await cli(run('#3'))
  // Refused from a lane (it may not run workers), and a report from anything but a worker.
  await cli(run('local:1'), { ...s.env, SERVICE_CONVERSATION: lane })
  assert.is(await cli(['worker', 'report', '--stdin'], s.env), 'svc: not inside a worker\n')
  assert.is(await cli(['worker', 'report', '--stdin'], { ...s.env, SERVICE_CONVERSATION: lane }), 'svc: not inside a worker\n')
  for (const verb of [['worker', 'run', 'local:1'], ['worker', 'report'], ['worker', 'wait'], ['worker', 'list'], ['worker', 'show', 'x'], ['worker', 'stop', 'x'], ['worker', 'reap', 'x']])
    await cli([...verb, '--no-such-option'])

  const valid = { issue: 'local:1', prompt: 'x', conversation: s.root, noWait: true, project: s.project.key }
  for (const body of ['', '{', '[]', 'null', '"x"', '{"issue":', '\u0000']) await http('POST', '/api/workers', body)
  const wrong: Record<string, unknown[]> = { issue: [1, '', ...BAD_ISSUES], prompt: [1, null], harness: ['vim', 1], effort: ['max'], post: ['yes', 1], replace: ['no'], conversation: ['', 1, ...BAD_REFS], project: ['nope', 1] }
  for (const [field, values] of Object.entries(wrong)) for (const value of values) await http('POST', '/api/workers', JSON.stringify({ ...valid, [field]: value }))
  for (const extra of [{ cwd: '/' }, { role: 'builder' }, { bogus: 1 }, { conversation: undefined }]) await http('POST', '/api/workers', JSON.stringify({ ...valid, ...extra }))
  await http('POST', '/api/workers', JSON.stringify({ ...valid, conversation: lane }))
  await http('POST', '/api/workers', JSON.stringify({ ...valid, prompt: 'x'.repeat(5 * 1024 * 1024) }))
  for (const q of ['bogus=1', 'issue=a&issue=b', 'cwd=/', 'parent=', ...BAD_ISSUES.slice(0, 6).map((i) => `issue=${encodeURIComponent(i)}&project=${s.project.key}`)]) await http('GET', `/api/workers?${q}`)
  for (const r of BAD_REFS) {
    await http('GET', `/api/workers?parent=${encodeURIComponent(r)}`)
    await http('GET', `/api/workers/${encodeURIComponent(r)}`)
    await http('POST', `/api/workers/${encodeURIComponent(r)}/reap`, '{}')
  }
  await http('GET', `/api/workers/${s.root}`)
  await http('POST', `/api/workers/${lane}/reap`, '{}')
  for (const body of ['{', '[]', '{"park":"yes"}', '{"keep":1}', '{"worker":"1"}']) await http('POST', `/api/workers/${s.root}/reap`, body)
  unchanged()
})

test('HTTP: malformed JSON, wrong types, unknown fields, NUL and newlines, huge bodies, bad paths and queries', async () => {
  const valid = { role: 'builder', run: 'r1', key: 'k', prompt: 'x', conversation: s.root, noWait: true }
  for (const body of ['', '{', 'nul', '[]', 'null', '"x"', '{"role":', '{role:1}', '\u0000', '{"a":1}{"b":2}']) await http('POST', '/api/lanes', body)
  const wrong: Record<string, unknown[]> = {
    key: [1, true, {}, [], null], for: [2, {}], role: [1, 'king', null], brief: [1, []], prompt: [1, {}], run: [3, []], parent: [4, {}], project: [5],
    model: [6], harness: ['vim', 7], effort: ['max', 8], title: [9], branch: [10], from: [11], at: [12], reuse: ['yes', 1], replace: ['no', 0], noWait: ['true', 1], conversation: [13, {}],
  }
  for (const [field, values] of Object.entries(wrong)) for (const value of values) await http('POST', '/api/lanes', JSON.stringify({ ...valid, [field]: value }))
  for (const extra of [{ cwd: '/' }, { bogus: 1 }, { __proto__x: 1 }, { noWAIT: true }]) await http('POST', '/api/lanes', JSON.stringify({ ...valid, ...extra }))
  for (const k of [...BAD_KEYS, 'a\u0000b', 'r1\u0000']) await http('POST', '/api/lanes', JSON.stringify({ ...valid, key: k }))
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
  for (const body of ['{', '[]', '{"park":"yes"}', '{"keep":1}', '{"park":true,"force":true}']) await http('POST', `/api/lanes/${lane}/reap`, body)
  for (const body of ['{', '{"text":1}', '{"text":""}', '{"text":"x","force":"yes"}', '{"text":"x","extra":1}']) await http('POST', `/api/convs/${lane}/tell`, body)
  for (const body of ['{', '{"decision":"maybe"}', '{"decision":"allow","message":1}']) await http('POST', `/api/convs/${lane}/answer`, body)
  for (const body of ['{', '{"conv":1}', '{"conv":"x","extra":true}']) await http('POST', '/rpc/convShow', body)
  await http('POST', '/rpc/noSuchMethod', '{}')
  await http('POST', '/rpc/laneWait', JSON.stringify({ run: 'r1', timeoutMs: 10_000_000 }))
  unchanged()
})

test('item 15: bounded reads with a clear limit message, and no stack trace: /dev/zero, files and stdin over the limit, a body over 4 MB on the wire', async () => {
  const limit = 1_000_000
  const big = join(h.home, 'big.md')
  writeFileSync(big, 'x'.repeat(limit + 1))
  // Within the CLI's bound, but over the kernel's 4 MB once each control byte is escaped in the request's JSON.
  const wide = join(h.home, 'wide.md')
  writeFileSync(wide, '\x01'.repeat(limit))
  const over = (what: string) => `svc: the ${what} is over the limit of ${limit} bytes\nhint: shorten it to at most ${limit} bytes\n`
  assert.is(await cli(start(['--run', 'r1', '--key', 'k', '--brief', '/dev/zero'])), over('brief /dev/zero'))
  assert.is(await cli(start(['--run', 'r1', '--key', 'k', '--brief', big])), over(`brief ${big} (${limit + 1} bytes)`))
  assert.is(await cli(['lane', 'report', '--file', big]), over(`report ${big} (${limit + 1} bytes)`))
  assert.is(await cli(['lane', 'report', '--file', '/dev/zero']), over('report /dev/zero'))
  assert.is(await cli(['lane', 'report', '--stdin', '--verdict-file', '/dev/zero']), over('verdict file /dev/zero'))
  const stdin = await h.svc(['lane', 'report', '--stdin'], { env: s.env, input: 'y'.repeat(limit + 1) })
  assert.is(stdin.code, 1)
  assert.is(stdin.stderr, over('standard input'))
  assert.is(await cli(['lane', 'report', '--file', wide], { ...s.env, SERVICE_CONVERSATION: lane }), 'svc: request body over 4194304 bytes\n')
  assert.is(await cli(start(['--run', 'r1', '--key', 'k', '--brief', h.home])), `svc: cannot read the brief ${h.home}: it is a directory\n`)
  unchanged()
})

test('item 16: object keys from users are own keys only: --project __proto__ (constructor, toString) names no project', async () => {
  const projects = join(h.service, 'projects.yaml')
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.is(await cli(start(['--run', 'r1', '--key', 'k', '--project', key])), `svc: no project ${key} in ${projects}\n`)
    assert.is(await cli(['conv', 'new', '--harness', 'none', '--project', key]), `svc: no project ${key} in ${projects}\n`)
  }
  for (const q of ['__proto__=1', 'constructor=x', 'toString=y']) await http('GET', `/api/lanes?${q}`)
  unchanged()
})

test('item 14: control characters in --model (or any shown field) never reach the terminal raw; a newline forges no table row', async () => {
  const hostile = 'm\n99   r9/forged  builder  i1\x1b[2J\x9b\u202e'
  await h.ok(['lane', 'start', '--run', 'r14', '--key', 'k', '--role', 'builder', '--harness', 'none', '--model', hostile, '--prompt', 'x', '--no-wait'], { env: s.env })
  const raw = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/
  const list = await h.ok(['lane', 'list', '--run', 'r14'])
  const rows = list.trimEnd().split('\n')
  assert.is(rows.length, 2, `a header and one row, got ${JSON.stringify(list)}`)
  assert.not.match(list, raw)
  assert.match(rows[1], 'm\\n99   r9/forged  builder  i1\\x1b[2J\\x9b\\u202e')
  const show = await h.ok(['conv', 'show', 'r14-k-builder-i1'])
  assert.not.match(show, raw)
  assert.ok(show.split('\n').some((l) => l.startsWith('model: m\\n99')), show)
  const r = await h.svc(['conv', 'show', `x\x1b[2J\u202e`])
  assert.is(r.code, 1)
  assert.not.match(r.stderr, raw)
})

test.run()
