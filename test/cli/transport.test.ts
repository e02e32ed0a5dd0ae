import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createServer, type Socket } from 'node:net'
import { httpTransport } from '../../cli/connect.js'
import type { KernelFile } from '../../kernel/io/kernel-file.js'

// A request sent on a kept-alive connection that the kernel closed as idle in the same moment is reset before the
// kernel read it (seen in a suite whose process was busy while the kernel's idle limit passed): the transport sends
// it again, once, on a new connection. Played here by a server that resets the second request of its first connection.

function server() {
  let connections = 0
  const answered: string[] = []
  /** Every request read, the reset one included, as `<connection>:<path>`. */
  const received: string[] = []
  const srv = createServer((socket: Socket) => {
    const n = ++connections
    let requests = 0
    let buf = ''
    socket.on('data', (d) => {
      buf += d.toString('utf8')
      for (;;) {
        const end = buf.indexOf('\r\n\r\n')
        if (end === -1) return
        const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0)
        if (buf.length < end + 4 + length) return
        const path = buf.slice(0, end).split(' ')[1]
        buf = buf.slice(end + 4 + length)
        requests++
        received.push(`${n}:${path}`)
        if (n === 1 && requests === 2) return void socket.resetAndDestroy()
        answered.push(`${n}:${path}`)
        const body = JSON.stringify({ path })
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: ` +
            `keep-alive\r\n\r\n${body}`,
        )
      }
    })
  })
  return {
    srv,
    answered,
    received,
    listening: new Promise<number>((r) =>
      srv.listen(0, '127.0.0.1', () => r((srv.address() as { port: number }).port)),
    ),
  }
}

const kernelAt = (port: number) => ({ port, token: 't', pid: process.pid }) as unknown as KernelFile

test('a request reset on a reused kept-alive connection is sent again once, on a new connection', async () => {
  const s = server()
  const send = httpTransport(kernelAt(await s.listening))
  try {
    assert.equal(await send('/rpc/a', {}), { status: 200, body: { path: '/rpc/a' } })
    assert.equal(await send('/rpc/b', {}), { status: 200, body: { path: '/rpc/b' } })
    assert.equal(
      s.received,
      ['1:/rpc/a', '1:/rpc/b', '2:/rpc/b'],
      'the second request went out on the kept-alive connection, was reset, and went out again once on a new one',
    )
    assert.equal(s.answered, ['1:/rpc/a', '2:/rpc/b'])
  } finally {
    s.srv.close()
  }
})

test('a reset on a new connection is not sent again: one clear unavailable error', async () => {
  const srv = createServer((socket) => socket.on('data', () => socket.resetAndDestroy()))
  const port = await new Promise<number>((r) =>
    srv.listen(0, '127.0.0.1', () => r((srv.address() as { port: number }).port)),
  )
  try {
    const send = httpTransport(kernelAt(port))
    await send('/rpc/a', {}).then(
      () => assert.unreachable('a reset request must fail'),
      (e: Error & { code?: string }) => {
        assert.is(e.code, 'unavailable')
        assert.match(e.message, `kernel on port ${port} did not answer`)
      },
    )
  } finally {
    srv.close()
  }
})

test.run()
