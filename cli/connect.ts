import { spawn } from 'node:child_process'
import { existsSync, openSync, closeSync, readFileSync, mkdirSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { SvcError } from '../kernel/domain/errors.js'
import { homePaths, serviceHome } from '../kernel/io/home.js'
import { readKernelFile, staleReason, type KernelFile } from '../kernel/io/kernel-file.js'
import { remotePort, type Transport } from '../kernel/port/client.js'
import type { KernelPort } from '../kernel/port/port.js'
import { VERSION } from '../kernel/io/version.js'
import type { Io } from './io.js'

const START_LIMIT_MS = 15_000

/** The service home of this call: SERVICE_HOME must exist when set; the default is created on first use. */
export function resolveHome(io: Io): string {
  const { dir, explicit } = serviceHome(io.env)
  if (!existsSync(dir)) {
    if (explicit)
      throw new SvcError(
        'usage',
        `service home ${dir} does not exist`,
        `create it (mkdir -m 700 ${dir}) or unset SERVICE_HOME`,
      )
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  } else if (!statSync(dir).isDirectory()) throw new SvcError('usage', `service home ${dir} is not a directory`)
  return dir
}

const quieted = new WeakSet<object>()

/** HTTP over node:http (quicker to load than fetch, which matters on every CLI call). A request sent on a kept-alive
 * connection that the kernel closed as idle in the same moment is reset before the kernel read it: that one is sent
 * again, once, on a new connection. */
export const httpTransport =
  (k: KernelFile): Transport =>
  (path, body) =>
    send(k, path, body, true)

const send = (k: KernelFile, path: string, body: unknown, mayResend: boolean): ReturnType<Transport> =>
  new Promise((resolve, reject) => {
    const data = JSON.stringify(body)
    const req = request(
      {
        host: '127.0.0.1',
        port: k.port,
        path,
        method: 'POST',
        headers: {
          authorization: `Bearer ${k.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) })
          } catch {
            resolve({
              status: res.statusCode ?? 0,
              body: {
                error: {
                  code: 'internal',
                  message: `kernel answered HTTP ${res.statusCode} with a body that is not JSON`,
                },
              },
            })
          }
        })
        res.on('error', reject)
      },
    )
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (mayResend && req.reusedSocket && e.code === 'ECONNRESET') send(k, path, body, false).then(resolve, reject)
      else reject(transportError(k, e))
    })
    // A kernel that refuses a request (a body over its limit) answers and closes before the body is all sent: the
    // write then fails on the socket after the answer was taken, which is no error of this call.
    req.on('socket', (s) => {
      if (quieted.has(s)) return // a kept-alive socket carries many requests: one listener is enough
      quieted.add(s)
      s.on('error', () => {})
    })
    req.end(data)
  })

/** A refused connection means the request reached no kernel: it is marked so that it may be sent again. */
function transportError(k: KernelFile, e: NodeJS.ErrnoException): SvcError {
  const err = new SvcError('unavailable', `kernel on port ${k.port} did not answer: ${e.message}`)
  if (e.code === 'ECONNREFUSED') Object.assign(err, { notDelivered: true })
  return err
}

async function answers(k: KernelFile): Promise<boolean> {
  try {
    const r = await httpTransport(k)('/rpc/kernelStatus', {})
    return r.status === 200
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Why the kernel we started did not come up: its last fatal line in kernel.log. */
function startFailure(logPath: string, since: number): string | undefined {
  try {
    const text = readFileSync(logPath, 'utf8').slice(since)
    const lines = text.split('\n').filter((l) => l.includes('fatal: '))
    const last = lines.at(-1)
    return last ? last.slice(last.indexOf('fatal: ') + 7) : undefined
  } catch {
    return undefined
  }
}

/** The running kernel of this home; with `start`, one is started when none answers (exactly one wins a race:
 * kernel.json is created exclusively). */
export async function ensureKernel(io: Io, start = true): Promise<KernelFile | undefined> {
  const home = resolveHome(io)
  const paths = homePaths(home)
  const current = readKernelFile(paths.kernelJson)
  const reason = staleReason(current, VERSION)
  if (current && !reason && (await answers(current))) return current
  if (!start) return undefined
  if (current && reason?.includes('runs version')) {
    // A kernel of another version: ask it to stop, then start ours.
    await remotePort(httpTransport(current))
      .kernelStop({})
      .catch(() => {})
    for (let i = 0; i < 100 && existsSync(paths.kernelJson); i++) await sleep(50)
  }
  let logSize = 0
  try {
    logSize = statSync(paths.kernelLog).size
  } catch {}
  const log = openSync(paths.kernelLog, 'a', 0o600)
  const main = fileURLToPath(new URL('./main.js', import.meta.url))
  // The kernel is no conversation: it keeps neither the identity nor the key of the one that happened to start it.
  const { SERVICE_CONVERSATION: _c, SERVICE_CONVERSATION_KEY: _k, ...env } = io.env
  const child = spawn(process.execPath, [main, 'kernel', 'run'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...env, SERVICE_HOME: home },
    cwd: home,
  })
  closeSync(log)
  let exited = false
  child.on('exit', () => (exited = true))
  child.unref()
  const deadline = Date.now() + START_LIMIT_MS
  if (io.isTTY) io.err('svc: starting the kernel...\n')
  while (Date.now() < deadline) {
    const k = readKernelFile(paths.kernelJson)
    if (k && !staleReason(k, VERSION) && (await answers(k))) return k
    if (exited && !k) {
      const why = startFailure(paths.kernelLog, logSize)
      if (why) throw new SvcError('unavailable', `the kernel failed to start: ${why}`)
    }
    await sleep(exited ? 50 : 25)
  }
  throw new SvcError(
    'unavailable',
    `the kernel did not come up within ${START_LIMIT_MS / 1000} s`,
    `see ${paths.kernelLog}`,
  )
}

/** A port on the kernel of this home. Unless `verify`, a kernel.json naming a live kernel of this version is
 * trusted without a round trip (the kernel claims it only once it listens); a refused request then says so. */
export async function connect(io: Io, verify = true): Promise<KernelPort> {
  let k: KernelFile | undefined
  if (!verify) {
    const current = readKernelFile(homePaths(resolveHome(io)).kernelJson)
    if (current && !staleReason(current, VERSION)) k = current
  }
  k ??= await ensureKernel(io)
  return remotePort(httpTransport(k!))
}
