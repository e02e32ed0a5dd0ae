import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { run as deck } from '../../cli/commands/deck.js'
import { connect } from '../../cli/connect.js'
import type { Io } from '../../cli/io.js'
import { TestHome, until } from '../helpers/home.js'

let h: TestHome
let k: { port: number; token: string }
test.before(async () => {
  h = new TestHome('deck')
  await h.ok(['kernel', 'start'])
  k = h.kernelFile()!
})
test.after(() => h.stop())

const base = () => `http://127.0.0.1:${k.port}`
async function login(url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' })
  assert.is(res.status, 303, await res.text())
  // Whatever cookie the login sets (name=value), to be sent back as the browser would.
  return (res.headers.get('set-cookie') ?? '').split(';')[0]
}
const get = (path: string, headers: Record<string, string>) => fetch(base() + path, { headers }).then((r) => r.status)
const post = (path: string, headers: Record<string, string>, body: unknown = {}) =>
  fetch(base() + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then((r) => r.status)

test('the deck cookie is a session of its own, never the token: it opens the deck routes only, and svc deck --revoke ends it', async () => {
  const url = JSON.parse(await h.ok(['deck', '--json', '--no-open'])).url as string
  const cookie = await login(url)
  assert.match(cookie, /^svc_deck_\d+=/)
  assert.not.ok(cookie.includes(k.token), 'the cookie does not hold the bearer token')
  const headers = { cookie }
  assert.is(await get('/api/tree', headers), 200, 'the deck tree')
  assert.is(await get('/', headers), 200, 'the deck page')
  // A person starts work from the page: the launch route takes the session and applies the launch rules (here: no
  // conversation 1). Everything else needs the bearer token: the RPC (which launches shell lanes), the list.
  assert.is(await post('/api/lanes', headers, { conversation: '1', role: 'builder', key: 'x', prompt: 'x' }), 404)
  assert.is(await post('/rpc/kernelStatus', headers), 401)
  assert.is(await post('/rpc/convNew', headers, { cwd: h.home, harness: 'shell', prompt: 'id' }), 401)
  assert.is(await get('/api/lanes', headers), 401)
  assert.is(await post('/rpc/kernelStatus', { authorization: `Bearer ${k.token}` }), 200)
  // The link was spent.
  assert.is((await fetch(url, { redirect: 'manual' })).status, 401)
  const out = await h.ok(['deck', '--revoke'])
  assert.is(out, 'revoked 1 deck session(s); svc deck gives a new link\n')
  assert.is(await get('/api/tree', headers), 401, 'revoked')
})

test("on a terminal, svc deck opens a private file that leads to the deck; the code never goes into the opener's arguments", async () => {
  const bin = join(h.home, 'bin')
  mkdirSync(bin, { recursive: true })
  const argsFile = join(h.home, 'opener-args')
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\n`)
  chmodSync(join(bin, 'xdg-open'), 0o755)
  let out = ''
  const path = process.env.PATH
  // CI=true (as CI runs) keeps svc deck from opening anything: this test is a person's terminal.
  const env = h.env({ PATH: `${bin}:${path}`, CI: undefined })
  const io: Io = {
    out: (t) => void (out += t),
    err: () => {},
    env,
    cwd: h.home,
    isTTY: true,
    readStdin: async () => '',
  }
  // This process's PATH too, whichever environment the opener is started with.
  process.env.PATH = env.PATH
  try {
    assert.is(await deck(await connect(io), {}, io), 0)
  } finally {
    process.env.PATH = path
  }
  await until(() => existsSync(argsFile) && readFileSync(argsFile, 'utf8').endsWith('\n'), 'the opener to run', 20_000)
  const page = join(h.service, 'deck-open.html')
  assert.equal(readFileSync(argsFile, 'utf8'), `${page}\n`, 'the opener is given a path only')
  assert.is(statSync(page).mode & 0o777, 0o600, 'only this user can read the page')
  const url = out.trim()
  assert.match(readFileSync(page, 'utf8'), `<meta http-equiv="refresh" content="0;url=${url}">`)
  assert.match(await login(url), /^svc_deck_\d+=/, 'the link in the page logs the browser in')
})

test.run()
