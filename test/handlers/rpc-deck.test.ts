import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HTTP_STATUS } from '../../handlers/status.js'
import { ERROR_CODES } from '../../kernel/domain/errors.js'
import { DeckAccess } from '../../kernel/services/deck-access.js'
import { realIds } from '../../kernel/io/adapters.js'
import { rejection } from '../helpers/home.js'
import { answer, err, harness, refuse } from './kit.js'

// ---- /rpc ----

const status = { pid: 42, port: 4100, version: '0.1.0', home: '/home/u/.service', startedAt: 1, conversations: 3 }

test('POST /rpc/<method>: the method with its validated input; the answer as JSON', async () => {
  const { ask, calls } = harness({
    kernelStatus: async () => status,
    laneWait: async () => ({ kind: 'pending' as const, cursor: '1.a.1' }),
  })
  assert.equal(await answer(ask('/rpc/kernelStatus', { body: {} })), { status: 200, body: status })
  assert.equal(await answer(ask('/rpc/laneWait', { body: { lane: 'b', timeoutMs: 100 } })), {
    status: 200,
    body: { kind: 'pending', cursor: '1.a.1' },
  })
  assert.equal(calls, [
    { method: 'kernelStatus', input: {} },
    { method: 'laneWait', input: { lane: 'b', timeoutMs: 100 } },
  ])
})

test('POST /rpc/<method>: an unknown method (an inherited name too) is 404; bad input 400; errors keep their status', async () => {
  const { ask, calls } = harness({})
  for (const m of ['frobnicate', 'constructor', 'toString', '__proto__'])
    assert.equal(
      await answer(ask(`/rpc/${m}`, { body: {} })),
      { status: 404, body: err('not_found', `no method ${m}`) },
      m,
    )
  assert.equal(await answer(ask('/rpc/laneWait', { body: { lane: 'b' } })), {
    status: 400,
    body: err('usage', 'field timeoutMs is required'),
  })
  assert.equal(await answer(ask('/rpc/laneWait', { body: { lane: 'b', timeoutMs: 60_001 } })), {
    status: 400,
    body: err('usage', 'timeoutMs: Invalid value: Expected <=60000 but received 60001'),
  })
  assert.equal(await answer(ask('/rpc/kernelStatus', { body: { verbose: true } })), {
    status: 400,
    body: err('usage', 'unknown field verbose'),
  })
  assert.equal(await answer(ask('/rpc/kernelStatus', { raw: 'x' })), {
    status: 400,
    body: err('usage', 'the request body is not JSON'),
  })
  assert.equal(await answer(ask('/rpc/kernelStatus')), {
    status: 404,
    body: err('not_found', 'no route GET /rpc/kernelStatus'),
  })
  assert.equal(calls, [])
  const h = harness({ laneReport: refuse('not_inside_lane', 'not inside a lane') })
  assert.equal(await answer(h.ask('/rpc/laneReport', { body: { body: 'x' } })), {
    status: 400,
    body: err('not_inside_lane', 'not inside a lane'),
  })
})

test('every error code has its one HTTP status', () => {
  assert.equal(Object.keys(HTTP_STATUS).sort(), [...ERROR_CODES].sort())
  assert.equal(
    { ...HTTP_STATUS },
    {
      usage: 400,
      not_inside_lane: 400,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      too_large: 413,
      unavailable: 503,
      internal: 500,
    },
  )
})

// ---- the deck's own credentials (kernel side) ----

test('a deck code is single-use and short-lived; the session it gives is random, expires, and is revoked with every other', async () => {
  let now = 1_000_000
  const deck = new DeckAccess(
    { clock: { now: () => now }, ids: realIds },
    { codeMs: 120_000, sessionMs: 12 * 3600_000 },
  )
  const used = 'this deck link was used already or has expired; run svc deck for a new one'
  const gone = 'the deck session has expired or was revoked; run svc deck for a new link'
  const { code } = deck.issue()
  const a = deck.redeem(code)
  assert.equal([a.session.length, a.expiresAt], [43, now + 12 * 3600_000])
  assert.is((await rejection(Promise.resolve().then(() => deck.redeem(code)))).message, used, 'a code is spent once')
  const late = deck.issue()
  now += 120_000
  assert.is(
    (await rejection(Promise.resolve().then(() => deck.redeem(late.code)))).message,
    used,
    'a code lives 2 minutes',
  )
  const b = deck.redeem(deck.issue().code)
  assert.is.not(a.session, b.session)
  assert.equal(deck.check(a.session), { expiresAt: a.expiresAt })
  now = a.expiresAt
  assert.is(
    (await rejection(Promise.resolve().then(() => deck.check(a.session)))).message,
    gone,
    'a session lives 12 hours',
  )
  assert.equal(deck.check(b.session), { expiresAt: b.expiresAt })
  const pending = deck.issue()
  assert.equal(deck.revoke(), { revoked: 1 })
  assert.is((await rejection(Promise.resolve().then(() => deck.check(b.session)))).message, gone, 'revoked')
  assert.is(
    (await rejection(Promise.resolve().then(() => deck.redeem(pending.code)))).message,
    used,
    'a code not yet used is revoked too',
  )
})

// ---- the deck's pages ----

test('GET / and /agents: the Command Deck (inbox, runs) and the Agents page (tree, search), server-rendered; the script comes from /deck/client.js', async () => {
  const { ask, calls } = harness({})
  for (const [path, title, page, ids] of [
    ['/', 'Command Deck', 'deck', ['inbox', 'inbox-count', 'runs', 'run', 'parent', 'costs', 'status', 'notify-slot']],
    ['/agents', 'Agents', 'agents', ['tree', 'search', 'run', 'parent', 'costs', 'status', 'notify-slot']],
  ] as const) {
    const res = await ask(path)
    assert.is(res.status, 200)
    assert.is(res.headers.get('content-type'), 'text/html; charset=UTF-8')
    const html = await res.text()
    assert.match(html, `<title>${title}</title>`)
    assert.match(html, `<body data-page="${page}">`)
    for (const id of ids) assert.match(html, `id="${id}"`)
    assert.match(html, '<script type="module" src="/deck/client.js"></script>')
  }
  assert.equal(calls, [], 'the page itself asks the kernel nothing; the script does')
})

test('GET /conv/:ref: the conversation page with its sections and controls; the reference is escaped by construction', async () => {
  const { ask } = harness({})
  const html = await (await ask('/conv/r1-b-builder-i1')).text()
  assert.match(html, '<body data-page="conv" data-ref="r1-b-builder-i1">')
  for (const id of [
    'transcript',
    'composer',
    'message',
    'composer-reason',
    'needs',
    'needs-body',
    'reports',
    'parked',
    'chain',
    'worktree',
    'contract',
    'diff-load',
    'diff',
    'stop',
    'reap',
    'park',
    'keep',
    'reap-go',
  ])
    assert.match(html, `id="${id}"`)
  const hostile = await (await ask('/conv/%22%3E%3Cimg%20src%3Dx%3E%3C%2Fscript%3E')).text()
  assert.match(hostile, 'data-ref="&quot;&gt;&lt;img src=x&gt;&lt;/script&gt;"')
  assert.not.match(hostile, '<img src=x>')
})

/** Does this text parse as a JavaScript module? */
const parsesAsModule = (code: string) =>
  spawnSync(process.execPath, ['--input-type=module', '--check'], { input: code }).status === 0

test('GET /deck/client.js: the compiled browser code the kernel hands over, served as a module that parses', async () => {
  const bundle = readFileSync(new URL('../../handlers/deck/client.bundle.js', import.meta.url), 'utf8')
  const { ask, calls } = harness({ deckClient: async () => ({ js: bundle }) })
  const res = await ask('/deck/client.js')
  assert.is(res.status, 200)
  assert.is(res.headers.get('content-type'), 'text/javascript; charset=utf-8')
  const code = await res.text()
  assert.is(code, bundle)
  assert.equal(calls, [{ method: 'deckClient', input: {} }])
  assert.ok(parsesAsModule(code))
  assert.not.ok(parsesAsModule(code + '\n(('), 'the check can fail')
  for (const route of [
    '/api/tree',
    '/api/events',
    '/api/convs/',
    '/detail',
    '/diff',
    '/tell',
    '/answer',
    '/stop',
    '/reap',
  ])
    assert.match(code, route)
  assert.not.match(
    code,
    /innerHTML|insertAdjacentHTML|outerHTML|document\.write/,
    'no markup is ever parsed from a string',
  )
  const missing = harness({
    deckClient: refuse('unavailable', "the deck's browser code is not built", 'run npm run build in the checkout'),
  })
  assert.is((await missing.ask('/deck/client.js')).status, 503)
})

// ---- what the handlers may import ----

const DIST = fileURLToPath(new URL('../../handlers/', import.meta.url))

/** Every module specifier the compiled file imports at run time, followed through relative imports. */
function runtimeImports(entry: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const src = readFileSync(file, 'utf8')
    for (const m of src.matchAll(
      /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
    )) {
      const spec = m[1] ?? m[2] ?? m[3]
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec))
      else out.add(spec)
    }
  }
  visit(entry)
  return out
}

test('the handlers, on the kernel and on workerd, import nothing at run time but hono and valibot (no node:*, no fs)', () => {
  for (const entry of ['app.js', 'worker.js']) {
    const specs = [...runtimeImports(join(DIST, entry))].sort()
    const foreign = specs.filter((s) => !(s === 'hono' || s.startsWith('hono/') || s === 'valibot'))
    assert.equal(foreign, [], `${entry} imports ${foreign.join(', ')}`)
    assert.ok(specs.includes('hono') && specs.includes('valibot'), entry)
  }
})

test.run()
