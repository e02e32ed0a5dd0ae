import { unlinkSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { createInterface } from 'node:readline'

/** The runner's socket: one kernel attached at a time (a new one replaces the old), one JSON frame a line each way.
 * `attach` is called when a kernel joins and returns the hello it is greeted with. */
export function serveLink(sock: string, on: { attach: () => object; line: (line: string) => void }) {
  let client: Socket | undefined
  let beat: NodeJS.Timeout | undefined
  const send = (frame: object) => client?.write(JSON.stringify(frame) + '\n')
  try {
    unlinkSync(sock)
  } catch {}
  const server = createServer((socket) => {
    client?.destroy()
    client = socket
    socket.write(JSON.stringify(on.attach()) + '\n')
    createInterface({ input: socket }).on('line', on.line)
    socket.on('error', () => {})
    socket.on('close', () => {
      if (client === socket) client = undefined
    })
  })
  server.listen(sock)
  return {
    send,
    attached: () => client !== undefined,
    /** The attached kernel hears from the runner this often when nothing happens (a silent host is lost). */
    beatEvery(ms: number | undefined, frame: () => object) {
      clearInterval(beat)
      if (ms) beat = setInterval(() => send(frame()), ms)
    },
    close: () => server.close(),
  }
}
