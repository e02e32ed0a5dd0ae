import { rmSync, writeFileSync } from 'node:fs'
import { homePaths } from '../../kernel/io/home.js'
import { startDetached } from '../../kernel/io/process.js'
import { ensureKernel, resolveHome } from '../connect.js'
import { json } from '../format.js'
import type { KernelPort } from '../../kernel/port/port.js'
import type { Io } from '../io.js'
import type { Run } from '../verbs.js'

/** The deck's address with a one-time login code (the token itself never goes into a URL). */
export async function deckUrl(port: KernelPort, kernelPort: number): Promise<string> {
  const { code } = await port.deckCode({})
  return `http://127.0.0.1:${kernelPort}/deck/login?code=${code}`
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')

/** Open the link in the browser without putting it in the opener's arguments, which every local user can read
 * (/proc/<pid>/cmdline): the opener gets the path of a page only this user can read, which goes on to the link. */
function openPrivately(url: string, file: string, env: NodeJS.ProcessEnv): void {
  rmSync(file, { force: true })
  const page =
    `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${attr(url)}` +
    `"><title>Command Deck</title><a href="${attr(url)}">Command Deck</a>\n`
  writeFileSync(file, page, { mode: 0o600, flag: 'wx' })
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open'
  startDetached([opener, file], { env })
}

export const run: Run<'deck'> = async (port, args, io: Io) => {
  if (args.revoke) {
    const { revoked } = await port.deckRevoke({})
    io.out(args.json ? json({ revoked }) : `revoked ${revoked} deck session(s); svc deck gives a new link\n`)
    return 0
  }
  const k = await ensureKernel(io)
  const url = await deckUrl(port, k!.port)
  io.out(args.json ? json({ url }) : `${url}\n`)
  if (io.isTTY && !args['no-open'] && !io.env.CI) openPrivately(url, homePaths(resolveHome(io)).deckOpener, io.env)
  return 0
}
