import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { SVC_MAIN, TestHome, alive, until } from '../helpers/home.js'
import { recordFigure } from './figures.js'

const FLOOD = 1100
const CAP = 256
const FILE_LIMIT = 1024

/** A kernel of its own home, started as a local user's commonly is (a file limit of 1024: 1100 connections are beyond
 * it), with the test timings given. */
interface Kernel {
  h: TestHome
  pid: number
  port: number
  token: string
}
let flooded: Kernel
let timed: Kernel

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN)
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function startKernel(label: string, env: Record<string, string>): Promise<Kernel> {
  const h = new TestHome(label)
  h.extraEnv = { SERVICE_TEST_BUILD: '1', ...env }
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      'sh',
      ['-c', `ulimit -n ${FILE_LIMIT} && exec "$@"`, 'sh', process.execPath, SVC_MAIN, 'kernel', 'start'],
      { env: h.env(), stdio: 'ignore' },
    )
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`svc kernel start exited ${code}`))))
  })
  const k = { h, ...h.kernelFile()! }
  assert.match(readFileSync(`/proc/${k.pid}/limits`, 'utf8'), new RegExp(`Max open files\\s+${FILE_LIMIT}\\s`))
  // One request first, so that a request timed later does not pay this process's first fetch.
  assert.is(await authorised(k, 30_000), 200)
  return k
}

async function authorised(k: Kernel, limitMs: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${k.port}/rpc/kernelStatus`, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json', connection: 'close' },
    body: '{}',
    signal: AbortSignal.timeout(limitMs),
  })
  await res.arrayBuffer()
  return res.status
}

/** Open `n` connections that never send a byte; count those the kernel closes. */
async function idleConnections(k: Kernel, n: number) {
  const sockets: Socket[] = []
  let closed = 0
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(k.port, '127.0.0.1', () => resolve())
          s.on('error', () => resolve())
          s.on('close', () => {
            closed++
            resolve()
          })
          s.resume() // read, so that the kernel closing it is seen
          sockets.push(s)
        }),
    ),
  )
  return { sockets, closed: () => closed }
}

test.before(async () => {
  ;[flooded, timed] = await Promise.all([
    // A connection that sends nothing stays open until the header or idle timeout ends it: a minute for the flood's
    // kernel (10 s by default, which a loaded machine can spend on the test below), so the flood holds every
    // connection the cap lets it keep for as long as the test runs.
    startKernel('flood', {
      SERVICE_TEST_SELF_CHECK_MS: '100',
      SERVICE_TEST_HEADERS_TIMEOUT_MS: '60000',
      SERVICE_TEST_REQUEST_TIMEOUT_MS: '120000',
      SERVICE_TEST_IDLE_TIMEOUT_MS: '60000',
    }),
    startKernel('flood-timeouts', {
      SERVICE_TEST_HEADERS_TIMEOUT_MS: '300',
      SERVICE_TEST_REQUEST_TIMEOUT_MS: '600',
      SERVICE_TEST_IDLE_TIMEOUT_MS: '3000',
    }),
  ])
})
test.after(async () => {
  await Promise.all([flooded?.h.stop(), timed?.h.stop()])
})

test('1100 idle connections without a token: the kernel sheds the excess, stays up, answers, logs nothing fatal, memory bounded', async () => {
  const k = flooded
  const rssBefore = rssKb(k.pid)
  const flood = await idleConnections(k, FLOOD)
  await until(() => flood.closed() >= FLOOD - CAP, `the kernel closing ${FLOOD - CAP} connections beyond its cap`)
  const atCap = flood.closed()
  const t0 = Date.now()
  assert.is(await authorised(k, 10_000), 200, 'an authorised request is answered while the flood holds its connections')
  const answerMs = Date.now() - t0
  // The authorised connection took the place of the flood's oldest.
  await until(() => flood.closed() >= FLOOD - CAP + 1, "the flood's oldest connection closed for the answer", 5000)
  // Several manifest self-checks run while the flood holds every connection it may.
  let peakRss = rssKb(k.pid)
  for (const deadline = Date.now() + 2500; Date.now() < deadline;) {
    await pause(250)
    assert.ok(alive(k.pid), 'the kernel is still up')
    peakRss = Math.max(peakRss, rssKb(k.pid))
  }
  // The first answer's connection is closed, so the second finds a place without closing another.
  assert.is(await authorised(k, 10_000), 200)
  assert.is(flood.closed(), FLOOD - CAP + 1, 'the flood held every other connection the cap let it keep throughout')
  const grownMb = (peakRss - rssBefore) / 1024
  assert.ok(grownMb < 40, `memory stays bounded: grew ${grownMb.toFixed(1)} MB`)
  const log = k.h.kernelLog()
  assert.not.match(log, /fatal|stopping|exited/, `nothing fatal in kernel.log:\n${log}`)
  assert.match(log, `over ${CAP} open connections: closed`)
  for (const s of flood.sockets) s.destroy()
  recordFigure(
    'connection flood: 1100 idle connections without a token, kernel under a file limit of 1024',
    `${atCap} closed at once at the cap of ${CAP}, the other ${FLOOD - atCap} held open, kernel up, an authorised ` +
      `request answered in ${answerMs} ms (the flood's oldest connection closed for it), RSS ` +
      `+${grownMb.toFixed(1)} MB, nothing fatal logged`,
  )
})

test('a connection that sends nothing, or its headers or body too slowly, is closed; a long-poll answer is not', async () => {
  const k = timed
  const idle = await idleConnections(k, 1)
  // The header timeout (300 ms here) closes it; a loaded machine may fire that timer late.
  await until(() => idle.closed() === 1, 'the idle connection closed', 10_000)
  const answers: string[] = []
  const slow = (first: string, drip: string) =>
    new Promise<void>((resolve) => {
      const s = connect(k.port, '127.0.0.1', () => s.write(first))
      const every = setInterval(() => s.writable && s.write(drip), 50)
      s.on('data', (d) => answers.push(String(d).split('\r\n')[0]))
      s.on('error', () => {})
      s.on('close', () => {
        clearInterval(every)
        resolve()
      })
    })
  const headers = `POST /rpc/kernelStatus HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${k.token}\r\n`
  await Promise.all([
    slow(headers, 'X-A: b\r\n'),
    slow(`${headers}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n`, ' '),
  ])
  assert.equal(answers, ['HTTP/1.1 408 Request Timeout', 'HTTP/1.1 408 Request Timeout'])
  // A wait the kernel answers after longer than the header and body timeouts together.
  const t0 = Date.now()
  const res = await fetch(`http://127.0.0.1:${k.port}/rpc/changes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ after: 1_000_000, timeoutMs: 1000 }),
  })
  assert.is(res.status, 200)
  assert.ok(Date.now() - t0 >= 950, 'the answer came after the wait, past both timeouts')
  assert.ok(alive(k.pid))
})

test.run()
