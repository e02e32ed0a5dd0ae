import { SvcError } from '../../kernel/domain/errors.js'
import { homePaths } from '../../kernel/io/home.js'
import { isAlive } from '../../kernel/io/procs.js'
import { remotePort } from '../../kernel/port/client.js'
import { ensureKernel, httpTransport, resolveHome } from '../connect.js'
import type { Run } from '../verbs.js'
import { existsSync } from 'node:fs'

const show = (json: boolean, k: { pid: number; port: number; version: string }, home: string) =>
  json
    ? JSON.stringify({ ...k, home }) + '\n'
    : `kernel ${k.version} running: pid ${k.pid}, port ${k.port}, home ${home}\n`

export const start: Run<'kernel start'> = async (_port, args, io) => {
  const k = await ensureKernel(io)
  io.out(show(Boolean(args.json), k!, resolveHome(io)))
  return 0
}

export const status: Run<'kernel status'> = async (_port, args, io) => {
  const home = resolveHome(io)
  const k = await ensureKernel(io, false)
  if (!k) {
    if (args.json) io.out(JSON.stringify({ running: false, home }) + '\n')
    io.err(`svc: no kernel is running for ${home}\n`)
    return 1
  }
  const st = await remotePort(httpTransport(k)).kernelStatus({})
  io.out(
    args.json
      ? JSON.stringify({ running: true, ...st }) + '\n'
      : `kernel ${st.version} running: pid ${st.pid}, port ${st.port}, home ${st.home}, ${st.conversations} ` +
          `conversations\n`,
  )
  return 0
}

export const stop: Run<'kernel stop'> = async (_port, args, io) => {
  const home = resolveHome(io)
  const k = await ensureKernel(io, false)
  if (!k) {
    io.out(args.json ? JSON.stringify({ stopped: false, running: false }) + '\n' : 'no kernel was running\n')
    return 0
  }
  await remotePort(httpTransport(k)).kernelStop({})
  const kernelJson = homePaths(home).kernelJson
  for (let i = 0; i < 200 && existsSync(kernelJson); i++) await new Promise((r) => setTimeout(r, 25))
  if (existsSync(kernelJson)) throw new SvcError('unavailable', `kernel pid ${k.pid} did not stop within 5 s`)
  // It gives up kernel.json first and its port only when its process ends: a kernel started right after this call
  // listens on the same port (where the deck's open pages reconnect) only once this one is gone.
  for (let i = 0; i < 200 && isAlive(k.pid, k.start); i++) await new Promise((r) => setTimeout(r, 25))
  io.out(args.json ? JSON.stringify({ stopped: true, pid: k.pid }) + '\n' : `kernel pid ${k.pid} stopped\n`)
  return 0
}

export const runForeground: Run<'kernel run'> = async (_port, _args, io) => {
  const { runKernel } = await import('../../kernel/server/server.js')
  await runKernel(resolveHome(io))
  return await new Promise<number>(() => {})
}
