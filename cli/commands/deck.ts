import { spawn } from 'node:child_process'
import { ensureKernel } from '../connect.js'
import { json } from '../format.js'
import type { Run } from '../table.js'

/** The deck's address with a one-time login code (the token itself never goes into a URL). */
export async function deckUrl(port: Parameters<Run>[0], kernelPort: number): Promise<string> {
  const { code } = await port.deckCode({})
  return `http://127.0.0.1:${kernelPort}/deck/login?code=${code}`
}

export const run: Run = async (port, args, io) => {
  const k = await ensureKernel(io)
  const url = await deckUrl(port, k!.port)
  io.out(args.json ? json({ url }) : `${url}\n`)
  if (io.isTTY && !args['no-open'] && !io.env.CI) {
    const opener = process.platform === 'darwin' ? 'open' : 'xdg-open'
    spawn(opener, [url], { detached: true, stdio: 'ignore' }).on('error', () => {}).unref()
  }
  return 0
}
