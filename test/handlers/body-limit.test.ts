import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { MAX_BODY } from '../../handlers/app.js'
import { answer, err, fakePort, harness, HOST, TOKEN } from './kit.js'

const status = { pid: 42, port: 4100, version: '0.1.0', home: '/home/u/.service', startedAt: 1, conversations: 3 }
const tooLarge = err('too_large', `request body over ${MAX_BODY} bytes`)

/** A request whose body stream must never be asked for: the limit judges a declared length by its header. */
class Unread extends Request {
  override get body(): Request['body'] {
    throw new Error('the body stream was asked for')
  }
}

const rpcRequest = (length: number, body = '{}') =>
  new Unread(`http://${HOST}/rpc/kernelStatus`, {
    method: 'POST',
    headers: { host: HOST, authorization: `Bearer ${TOKEN}`, 'content-length': String(length) },
    body,
  })

test('a body of declared length over the limit is refused by its header alone: 413, nothing called', async () => {
  const { app, port, calls } = harness({ kernelStatus: async () => status })
  assert.equal(await answer(app.request(rpcRequest(MAX_BODY + 1), undefined, { port, token: TOKEN })), {
    status: 413,
    body: tooLarge,
  })
  assert.equal(calls, [])
})

test('a body of declared length within the limit reaches its method without its stream being asked for', async () => {
  const { app, port, calls } = harness({ kernelStatus: async () => status })
  assert.equal(await answer(app.request(rpcRequest(2), undefined, { port, token: TOKEN })), {
    status: 200,
    body: status,
  })
  assert.equal(calls, [{ method: 'kernelStatus', input: {} }])
})

test('over HTTP, a chunked body of no declared length is counted: refused past the limit, taken within it', async () => {
  const { port, calls } = fakePort({ kernelStatus: async () => status })
  const { app } = harness()
  const server = serve({
    fetch: (req) => app.fetch(req, { port, token: TOKEN }),
    hostname: '127.0.0.1',
    port: 0,
  }) as Server
  await new Promise<void>((r) => (server.listening ? r() : server.once('listening', () => r())))
  const at = (server.address() as AddressInfo).port
  const post = (chunks: string[]) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: at,
          path: '/rpc/kernelStatus',
          method: 'POST',
          headers: { host: HOST, authorization: `Bearer ${TOKEN}`, 'transfer-encoding': 'chunked' },
        },
        (res) => {
          let text = ''
          res.on('data', (d: Buffer) => (text += d.toString()))
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
        },
      )
      // The server may answer 413 and close before every chunk is written.
      req.on('error', reject)
      for (const c of chunks) req.write(c)
      req.end()
    })
  try {
    const half = ' '.repeat(MAX_BODY / 2)
    assert.equal(await post(['{', half, half, '}']), { status: 413, body: tooLarge })
    assert.equal(calls, [])
    assert.equal(await post(['{', ' ', '}']), { status: 200, body: status })
    assert.equal(calls, [{ method: 'kernelStatus', input: {} }])
  } finally {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
})

test.run()
