import { closeSync, mkdirSync, openSync } from 'node:fs'
import { createConnection, type Socket } from 'node:net'
import { startDetached } from '../../io/process.js'
import { runnerPaths } from './files.js'

/** `attach`: stdin and stdout joined to the runner's socket; the runner started first when none answers. */
export async function runAttach(dir: string, self: string): Promise<number> {
  const p = runnerPaths(dir)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const connect = () =>
    new Promise<Socket | undefined>((resolve) => {
      const s = createConnection(p.sock)
      s.once('connect', () => resolve(s))
      s.once('error', () => resolve(undefined))
    })
  let socket = await connect()
  if (!socket) {
    const out = openSync(p.log, 'a', 0o600)
    startDetached([process.execPath, self, 'daemon', dir], { stdio: ['ignore', out, out] })
    closeSync(out)
    for (let i = 0; i < 100 && !socket; i++) {
      await new Promise((r) => setTimeout(r, 50))
      socket = await connect()
    }
  }
  if (!socket) {
    process.stderr.write(`host runner: no runner answers at ${p.sock}; see ${p.log}\n`)
    return 1
  }
  const s = socket
  process.stdin.pipe(s)
  s.pipe(process.stdout)
  return new Promise((resolve) => {
    process.stdin.on('end', () => s.end())
    s.on('close', () => resolve(0))
    s.on('error', () => resolve(0))
  })
}
