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
    ['GET', '/'],
    ['GET', '/agents'],
    ['GET', '/conv/1'],
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

test('a wrong token (any length), another scheme, or an empty bearer: 401', async () => {
  const { ask, calls } = harness({ laneList: lanes })
  for (const authorization of [`Bearer ${'b'.repeat(64)}`, `Bearer ${TOKEN.slice(1)}`, `Bearer ${TOKEN}x`, 'Bearer ', `Basic ${TOKEN}`, TOKEN, `bearer${TOKEN}`]) {
    const r = await answer(ask('/api/lanes', { token: null, headers: { authorization } }))
    assert.equal(r, { status: 401, body: err('unauthorized', 'missing or wrong token') }, authorization)
  }
  assert.equal(calls, [])
})

test('the token as a bearer header or as the deck cookie is let in', async () => {
  const { ask, calls } = harness({ laneList: lanes })
  assert.is((await ask('/api/lanes')).status, 200)
  assert.is((await ask('/api/lanes', { token: null, headers: { cookie: `svc_token_4100=${TOKEN}` } })).status, 200)
  const wrongCookie = await answer(ask('/api/lanes', { token: null, headers: { cookie: `svc_token_4100=${'c'.repeat(64)}` } }))
  assert.equal(wrongCookie, { status: 401, body: err('unauthorized', 'missing or wrong token') })
  // The cookie is the port's own: another kernel's deck cookie on the same host is not this one's.
  for (const cookie of [`svc_token_4200=${TOKEN}`, `svc_token=${TOKEN}`]) {
    const other = await answer(ask('/api/lanes', { token: null, headers: { cookie } }))
    assert.equal(other, { status: 401, body: err('unauthorized', 'missing or wrong token') }, cookie)
  }
  assert.is((await ask('/api/lanes', { token: null, headers: { cookie: `svc_token_4200=x; svc_token_4100=${TOKEN}` } })).status, 200, 'beside the cookie of another port')
  assert.is(calls.length, 3)
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
  for (const host of ['127.0.0.1:4100', '127.0.0.1', 'localhost:4100', 'localhost', '[::1]:4100', '[::1]']) assert.is((await ask('/api/lanes', { host })).status, 200, host)
})

test('a mutating request from another Origin is refused with 403; the same origin and a GET from elsewhere are not', async () => {
  const { ask, calls } = harness({ laneReap: async () => ({ lane: laneView(), removed: null, warnings: [], archived: true }), laneList: lanes })
  for (const origin of ['http://evil.example', 'http://127.0.0.1:9999', 'https://127.0.0.1:4100', 'null', 'not a url']) {
    const r = await answer(ask('/api/lanes/7/reap', { body: {}, headers: { origin } }))
    assert.equal(r, { status: 403, body: err('forbidden', `requests from origin ${origin} are refused`) }, origin)
  }
  assert.equal(calls, [])
  assert.is((await ask('/api/lanes/7/reap', { body: {}, headers: { origin: `http://${HOST}` } })).status, 200)
  const read = await ask('/api/lanes', { headers: { origin: 'http://evil.example' } })
  assert.is(read.status, 200)
  assert.is(read.headers.get('access-control-allow-origin'), null, 'no CORS: another origin cannot read the answer')
  // A DELETE or PUT from elsewhere is refused by the origin check too (before routing finds no such route).
  assert.is((await answer(ask('/api/lanes/7', { method: 'DELETE', headers: { origin: 'http://evil.example' } }))).status, 403)
})

test('GET /deck/login trades a one-time code for the token cookie (HttpOnly, SameSite=Strict) and goes to the deck', async () => {
  const { ask, calls } = harness({ deckRedeem: async () => ({ ok: true }) })
  const res = await ask('/deck/login?code=abc123', { token: null })
  assert.is(res.status, 303)
  assert.is(res.headers.get('location'), '/')
  assert.is(res.headers.get('set-cookie'), `svc_token_4100=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`, 'named by the port of the Host')
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
    assert.is(await res.text(), message + '\n')
  }
  assert.equal(calls.map((c) => c.input), [{ code: 'used' }, { code: '' }])
})

test('GET /deck/login from a foreign Host is refused before the code is spent', async () => {
  const { ask, calls } = harness({ deckRedeem: async () => ({ ok: true }) })
  const r = await answer(ask('/deck/login?code=abc', { token: null, host: 'evil.example:4100' }))
  assert.equal(r, { status: 403, body: err('forbidden', 'host evil.example is not the loopback') })
  assert.equal(calls, [])
})

test('constantTimeEqual: equal only for the same string', () => {
  assert.ok(constantTimeEqual(TOKEN, TOKEN))
  for (const given of ['', TOKEN.slice(1), TOKEN + 'a', 'b' + TOKEN.slice(1), TOKEN.slice(0, 63) + 'b']) assert.not.ok(constantTimeEqual(given, TOKEN), given)
  assert.not.ok(constantTimeEqual('x', ''))
  assert.ok(constantTimeEqual('', ''))
})

test.run()
