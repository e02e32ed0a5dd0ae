import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { constantTimeEqual } from '../../handlers/auth.js'
import { SvcError } from '../../kernel/domain/errors.js'
import { HOST, TOKEN, answer, err, harness, laneView } from './kit.js'

const lanes = async () => [laneView()]

test('no token: 401 on every route, and the kernel is never asked', async () => {
  const { ask, calls } = harness({ laneList: lanes })
  const routes: [string, string][] = [
    ['GET', '/api/lanes'],
    ['POST', '/api/lanes'],
    ['GET', '/api/lanes/7'],
    ['POST', '/api/lanes/7/reap'],
    ['GET', '/api/tree'],
    ['GET', '/api/convs/1'],
    ['GET', '/api/convs/1/transcript'],
    ['POST', '/api/convs/1/tell'],
    ['POST', '/api/convs/1/answer'],
    ['GET', '/api/events'],
    ['POST', '/rpc/kernelStatus'],
    ['GET', '/deck/client.js'],
    ['POST', '/deck/login'],
    ['GET', '/no/such/route'],
  ]
  for (const [method, path] of routes) {
    const r = await answer(ask(path, { method, token: null, ...(method === 'POST' ? { body: {} } : {}) }))
    assert.equal(r, { status: 401, body: err('unauthorized', 'missing or wrong token') }, `${method} ${path}`)
  }
  assert.equal(calls, [])
})

/** A deck page answered without a session: an HTML page saying why and what to run. */
async function sessionPageOf(res: Response | Promise<Response>) {
  const r = await res
  assert.match(r.headers.get('content-type') ?? '', 'text/html')
  const html = await r.text()
  assert.match(html, '<section class="panel session" data-session-lost="">')
  assert.match(html, 'Run <code>svc deck</code> in a terminal and open the link it prints')
  return { status: r.status, reason: /<p data-reason="">([^<]*)<\/p>/.exec(html)?.[1] }
}

test('a deck page without a session is a page saying what to run (401), not an error body', async () => {
  const { ask, calls } = harness({ deckSession })
  for (const path of ['/', '/agents', '/conv/1'])
    assert.equal(
      await sessionPageOf(ask(path, { token: null })),
      { status: 401, reason: 'This browser holds no session for this deck.' },
      path,
    )
  assert.equal(calls, [])
  assert.equal(
    await sessionPageOf(ask('/agents', { token: null, headers: { cookie: `svc_deck_4100=${'x'.repeat(43)}` } })),
    { status: 401, reason: 'the deck session has expired or was revoked; run svc deck for a new link' },
  )
})

test('a wrong token (any length), another scheme, or an empty bearer: 401', async () => {
  const { ask, calls } = harness({ laneList: lanes })
  for (const authorization of [
    `Bearer ${'b'.repeat(64)}`,
    `Bearer ${TOKEN.slice(1)}`,
    `Bearer ${TOKEN}x`,
    'Bearer ',
    `Basic ${TOKEN}`,
    TOKEN,
    `bearer${TOKEN}`,
  ]) {
    const r = await answer(ask('/api/lanes', { token: null, headers: { authorization } }))
    assert.equal(r, { status: 401, body: err('unauthorized', 'missing or wrong token') }, authorization)
  }
  assert.equal(calls, [])
})

const SESSION = 's'.repeat(43)
const deckSession = async (input: { session: string }) => {
  if (input.session !== SESSION)
    throw new SvcError('unauthorized', 'the deck session has expired or was revoked; run svc deck for a new link')
  return { expiresAt: Date.now() + 1000 }
}

test('the bearer token is let in; a deck cookie holding the token is not (the cookie is no master token)', async () => {
  const { ask, calls } = harness({ laneList: lanes })
  assert.is((await ask('/api/lanes')).status, 200)
  for (const cookie of [`svc_token_4100=${TOKEN}`, `svc_deck_4100=${TOKEN}`]) {
    const r = await answer(ask('/api/lanes', { token: null, headers: { cookie } }))
    assert.equal(r, { status: 401, body: err('unauthorized', 'missing or wrong token') }, cookie)
  }
  assert.equal(
    calls.map((c) => c.method),
    ['laneList'],
  )
})

// The deck's routes: its pages and every call its browser code makes.
const DECK_ROUTES: [string, string][] = [
  ['GET', '/'],
  ['GET', '/agents'],
  ['GET', '/conv/7'],
  ['GET', '/deck/client.js'],
  ['GET', '/api/session'],
  ['GET', '/api/tree'],
  ['GET', '/api/convs/7'],
  ['GET', '/api/convs/7/transcript'],
  ['GET', '/api/convs/7/detail'],
  ['GET', '/api/convs/7/diff'],
  ['GET', '/api/convs/7/parked/parked-1.patch'],
  ['POST', '/api/convs/7/tell'],
  ['POST', '/api/convs/7/answer'],
  ['POST', '/api/convs/7/stop'],
  ['POST', '/api/convs/7/archive'],
  ['POST', '/api/lanes'],
  ['POST', '/api/workers'],
  ['GET', '/api/lanes/7'],
  ['POST', '/api/lanes/7/reap'],
  ['GET', '/api/events'],
]
const NOT_DECK_ROUTES: [string, string][] = [
  ['POST', '/rpc/kernelStatus'],
  ['POST', '/rpc/laneStart'],
  ['POST', '/rpc/deckCode'],
  ['POST', '/rpc/deckRevoke'],
  ['GET', '/api/lanes'],
  ['POST', '/api/workers/7/reap'],
  ['GET', '/api/convs/7/transcript/x'],
  ['GET', '/deck/list-show.js'],
  ['GET', '/api/convs/7/stop'],
  ['POST', '/api/convs/7'],
  ['GET', '/api/lanes/7/reap'],
  ['GET', '/no/such/route'],
]

test("the deck session opens the deck's routes and nothing else; the kernel checks it, and an unknown one is refused", async () => {
  for (const [method, path] of DECK_ROUTES) {
    const { ask, calls } = harness({ deckSession })
    const opened = await ask(path, {
      method,
      token: null,
      headers: { cookie: `svc_deck_4100=${SESSION}` },
      ...(method === 'POST' ? { body: {} } : {}),
    })
    assert.equal(
      calls[0],
      { method: 'deckSession', input: { session: SESSION } },
      `${method} ${path} asks the kernel about the session`,
    )
    assert.ok(
      opened.status !== 401 && opened.status !== 403,
      `${method} ${path} is let through with the session (HTTP ${opened.status})`,
    )
    const stale = harness({ deckSession })
    if (method === 'GET' && /^\/(agents|conv\/7)?$/.test(path)) {
      const page = await sessionPageOf(
        stale.ask(path, { token: null, headers: { cookie: `svc_deck_4100=${'x'.repeat(43)}` } }),
      )
      assert.is(page.status, 401, path)
      continue
    }
    const r = await answer(
      stale.ask(path, {
        method,
        token: null,
        headers: { cookie: `svc_deck_4100=${'x'.repeat(43)}` },
        ...(method === 'POST' ? { body: {} } : {}),
      }),
    )
    assert.equal(
      r,
      {
        status: 401,
        body: err('unauthorized', 'the deck session has expired or was revoked; run svc deck for a new link'),
      },
      `${method} ${path}`,
    )
    assert.is(stale.calls.length, 1, 'only the session check')
  }
  for (const [method, path] of NOT_DECK_ROUTES) {
    const { ask, calls } = harness({ deckSession })
    const r = await answer(
      ask(path, {
        method,
        token: null,
        headers: { cookie: `svc_deck_4100=${SESSION}` },
        ...(method === 'POST' ? { body: {} } : {}),
      }),
    )
    assert.equal(r, { status: 401, body: err('unauthorized', 'missing or wrong token') }, `${method} ${path}`)
    assert.equal(calls, [], `${method} ${path}: the kernel is never asked`)
  }
  // The cookie is the port's own: another kernel's deck cookie on the same host is not this one's.
  for (const cookie of [`svc_deck_4200=${SESSION}`, `svc_deck=${SESSION}`]) {
    const { ask, calls } = harness({ deckSession })
    assert.is((await ask('/api/tree', { token: null, headers: { cookie } })).status, 401, cookie)
    assert.equal(calls, [])
  }
  // A bearer header, when given, decides alone: a wrong one is refused even beside a good session.
  const { ask } = harness({ deckSession })
  const r = await answer(ask('/api/tree', { token: 'b'.repeat(64), headers: { cookie: `svc_deck_4100=${SESSION}` } }))
  assert.equal(r, { status: 401, body: err('unauthorized', 'missing or wrong token') })
})

test('the Host must name the loopback: another name (DNS rebinding) or none is 403, before the token is even looked at', async () => {
  const { ask, calls } = harness({ laneList: lanes })
  const cases: [string | null, string][] = [
    ['evil.example:4100', 'evil.example'],
    ['evil.example', 'evil.example'],
    ['localhost.evil.example:4100', 'localhost.evil.example'],
    ['127.0.0.1.nip.io:4100', '127.0.0.1.nip.io'],
    ['10.0.0.5:4100', '10.0.0.5'],
    [null, '(none)'],
  ]
  for (const [host, named] of cases) {
    for (const token of [TOKEN, null]) {
      const r = await answer(ask('/api/lanes', { host, token }))
      assert.equal(r, { status: 403, body: err('forbidden', `host ${named} is not the loopback`) }, `${host} ${token}`)
    }
  }
  assert.equal(calls, [])
  for (const host of ['127.0.0.1:4100', '127.0.0.1', 'localhost:4100', 'localhost', '[::1]:4100', '[::1]'])
    assert.is((await ask('/api/lanes', { host })).status, 200, host)
})

test('a mutating request from another Origin is refused with 403; the same origin and a GET from elsewhere are not', async () => {
  const { ask, calls } = harness({
    laneReap: async () => ({ lane: laneView(), removed: null, warnings: [], archived: true }),
    laneList: lanes,
  })
  for (const origin of [
    'http://evil.example',
    'http://127.0.0.1:9999',
    'https://127.0.0.1:4100',
    'null',
    'not a url',
  ]) {
    const r = await answer(ask('/api/lanes/7/reap', { body: {}, headers: { origin } }))
    assert.equal(r, { status: 403, body: err('forbidden', `requests from origin ${origin} are refused`) }, origin)
  }
  assert.equal(calls, [])
  assert.is((await ask('/api/lanes/7/reap', { body: {}, headers: { origin: `http://${HOST}` } })).status, 200)
  const read = await ask('/api/lanes', { headers: { origin: 'http://evil.example' } })
  assert.is(read.status, 200)
  assert.is(read.headers.get('access-control-allow-origin'), null, 'no CORS: another origin cannot read the answer')
  // A DELETE or PUT from elsewhere is refused by the origin check too (before routing finds no such route).
  assert.is(
    (await answer(ask('/api/lanes/7', { method: 'DELETE', headers: { origin: 'http://evil.example' } }))).status,
    403,
  )
})

test('GET /deck/login trades a one-time code for a deck session cookie (never the token; HttpOnly, SameSite=Strict, living as long as the session) and goes to the deck', async () => {
  const { ask, calls } = harness({
    deckRedeem: async () => ({ session: SESSION, expiresAt: Date.now() + 12 * 3600_000 }),
  })
  const res = await ask('/deck/login?code=abc123', { token: null })
  assert.is(res.status, 303)
  assert.is(res.headers.get('location'), '/')
  assert.match(
    res.headers.get('set-cookie')!,
    new RegExp(`^svc_deck_4100=${SESSION}; Max-Age=(43199|43200); Path=/; HttpOnly; SameSite=Strict$`),
    'named by the port of the Host',
  )
  assert.equal(calls, [{ method: 'deckRedeem', input: { code: 'abc123' } }])
})

test('GET /deck/login with a used, expired or missing code: 401 with the kernel message, no cookie', async () => {
  const message = 'this deck link was used already or has expired; run svc deck for a new one'
  const { ask, calls } = harness({
    deckRedeem: async () => {
      throw new SvcError('unauthorized', message)
    },
  })
  for (const path of ['/deck/login?code=used', '/deck/login']) {
    const res = await ask(path, { token: null })
    assert.is(res.status, 401)
    assert.is(res.headers.get('set-cookie'), null)
    assert.equal(await sessionPageOf(res), { status: 401, reason: message })
  }
  assert.equal(
    calls.map((c) => c.input),
    [{ code: 'used' }, { code: '' }],
  )
})

test('GET /deck/login from a foreign Host is refused before the code is spent', async () => {
  const { ask, calls } = harness({ deckRedeem: async () => ({ session: SESSION, expiresAt: Date.now() + 1000 }) })
  const r = await answer(ask('/deck/login?code=abc', { token: null, host: 'evil.example:4100' }))
  assert.equal(r, { status: 403, body: err('forbidden', 'host evil.example is not the loopback') })
  assert.equal(calls, [])
})

test('constantTimeEqual: equal only for the same string', () => {
  assert.ok(constantTimeEqual(TOKEN, TOKEN))
  for (const given of ['', TOKEN.slice(1), TOKEN + 'a', 'b' + TOKEN.slice(1), TOKEN.slice(0, 63) + 'b'])
    assert.not.ok(constantTimeEqual(given, TOKEN), given)
  assert.not.ok(constantTimeEqual('x', ''))
  assert.ok(constantTimeEqual('', ''))
})

test.run()
