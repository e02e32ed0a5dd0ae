import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive } from '../helpers/home.js'

// A restarted kernel is found where the last one was (kernel-port) and still knows the deck's sessions, so an open
// deck page reconnects by itself; its event stream beats while nothing changes, so a page can tell a dead stream.

let h: TestHome
test.before.each(async () => {
  h = new TestHome('reconnect')
  h.extraEnv = { SERVICE_TEST_BUILD: '1', SERVICE_TEST_HEARTBEAT_MS: '150' }
  await h.ok(['kernel', 'start'])
})
test.after.each(() => h.stop())

const base = () => `http://127.0.0.1:${h.kernelFile()!.port}`
async function login(): Promise<string> {
  const url = JSON.parse(await h.ok(['deck', '--json', '--no-open'])).url as string
  const res = await fetch(url, { redirect: 'manual' })
  assert.is(res.status, 303, await res.text())
  return (res.headers.get('set-cookie') ?? '').split(';')[0]
}

/** The events of a stream, read until `n` have come or `ms` have passed. */
async function sse(cookie: string, n: number, ms: number): Promise<{ event: string; data: string; at: number }[]> {
  const ctl = new AbortController()
  const t0 = Date.now()
  const timer = setTimeout(() => ctl.abort(), ms)
  const out: { event: string; data: string; at: number }[] = []
  try {
    const res = await fetch(base() + '/api/events', { headers: { cookie }, signal: ctl.signal })
    assert.is(res.status, 200)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buf = ''
    while (out.length < n) {
      const { value, done } = await reader.read()
      if (done) break
      buf += value
      let end
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end)
        buf = buf.slice(end + 2)
        const field = (name: string) =>
          block
            .split('\n')
            .find((l) => l.startsWith(name + ':'))
            ?.slice(name.length + 1)
            .trim() ?? ''
        out.push({ event: field('event'), data: field('data'), at: Date.now() - t0 })
      }
    }
  } catch (e) {
    if ((e as Error).name !== 'AbortError') throw e
  } finally {
    clearTimeout(timer)
    ctl.abort()
  }
  return out
}

test('a restarted kernel listens on the port of the last one and keeps the deck sessions: an open page reconnects by itself', async () => {
  const cookie = await login()
  const port = h.kernelFile()!.port
  assert.is(readFileSync(join(h.service, 'kernel-port'), 'utf8'), `${port}\n`)
  assert.is((await fetch(base() + '/api/session', { headers: { cookie } })).status, 200)
  const last = h.kernelFile()!.pid
  await h.ok(['kernel', 'stop'])
  // Stopped means ended, its port free: not only its kernel.json gone.
  assert.not.ok(alive(last), `kernel pid ${last} has ended when svc kernel stop returns`)
  await h.ok(['kernel', 'start'])
  assert.is(h.kernelFile()!.port, port, 'the same address')
  assert.is((await fetch(base() + '/api/session', { headers: { cookie } })).status, 200, 'the same session')
  assert.is((await fetch(base() + '/api/tree', { headers: { cookie } })).status, 200)
  // The file keeps digests only: the session itself is nowhere on disk.
  const saved = readFileSync(join(h.service, 'deck-sessions.json'), 'utf8')
  assert.not.ok(saved.includes(cookie.split('=')[1]), 'no session in the file')
  await h.ok(['deck', '--revoke'])
  await h.ok(['kernel', 'stop'])
  await h.ok(['kernel', 'start'])
  assert.is((await fetch(base() + '/api/session', { headers: { cookie } })).status, 401, 'a revoked session stays so')
})

test('when the last port is taken, the kernel listens on another and records it', async () => {
  const port = h.kernelFile()!.port
  await h.ok(['kernel', 'stop'])
  const { createServer } = await import('node:net')
  const squatter = createServer()
  // Another process of the machine may hold the freed port a moment (a connection's own end): the squatter tries
  // again until it holds it. A port held by another for longer than that is taken all the same.
  const squat = () =>
    new Promise<boolean>((r, j) => {
      squatter.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? r(false) : j(e)))
      squatter.listen(port, '127.0.0.1', () => r(true))
    })
  for (let i = 0; i < 40 && !(await squat()); i++) await new Promise((r) => setTimeout(r, 50))
  try {
    await h.ok(['kernel', 'start'])
    const now = h.kernelFile()!.port
    assert.is.not(now, port)
    assert.is(readFileSync(join(h.service, 'kernel-port'), 'utf8'), `${now}\n`)
  } finally {
    if (squatter.listening) squatter.close()
  }
})

test('the event stream says ready with its heartbeat, then pings while nothing changes', async () => {
  const cookie = await login()
  const got = await sse(cookie, 4, 5000)
  assert.equal(
    got.map((e) => e.event),
    ['ready', 'ping', 'ping', 'ping'],
  )
  assert.is(JSON.parse(got[0].data).pingMs, 150)
  // Three beats in well under the 5 s a silent stream would take to be given up.
  assert.ok(got[3].at < 3000, `the third ping came at ${got[3].at} ms`)
})

test('a browser without a session is answered with a page, not JSON', async () => {
  for (const path of ['/', '/agents', '/conv/1']) {
    const res = await fetch(base() + path, { headers: { accept: 'text/html' } })
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path)
    assert.not.match(await res.text(), /^\s*\{/, path)
  }
})

test.run()
