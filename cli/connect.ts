import { existsSync, openSync, closeSync, readFileSync, mkdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SvcError } from '../kernel/domain/errors.js'
import { homePaths, serviceHome } from '../kernel/io/home.js'
import { readKernelFile, staleReason, type KernelFile } from '../kernel/io/kernel-file.js'
import { remotePort, type Transport } from '../kernel/port/client.js'
import type { KernelPort } from '../kernel/port/port.js'
import { VERSION } from '../kernel/io/version.js'
import type { Io } from './io.js'
import { startDetached } from '../kernel/io/process.js'
import { httpTransport, unresponsive } from './transport.js'

export { httpTransport }

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

/** Undefined when the kernel answers a status check, else why not. */
async function unanswered(k: KernelFile): Promise<SvcError | undefined> {
  try {
    const r = await httpTransport(k)('/rpc/kernelStatus', {})
    return r.status === 200 ? undefined : unresponsive(k, `it answered a status check with HTTP ${r.status}`)
  } catch (e) {
    return e instanceof SvcError ? e : new SvcError('unavailable', String(e))
  }
}

/** A live kernel holds kernel.json, yet this process cannot reach it (a sandbox without the loopback, a firewall):
 * starting another would only lose the race for kernel.json to it, so the caller is told what to do instead. */
function unreachable(k: KernelFile, path: string, e: SvcError): SvcError {
  const why = e.message.replace(/^kernel on port \d+ did not answer: /, '')
  return Object.assign(
    new SvcError(
      'unavailable',
      `cannot reach the kernel on port ${k.port} (pid ${k.pid}) that holds ${path}: ${why}`,
      `if this runs in a sandbox, let it connect to 127.0.0.1:${k.port}; else end that kernel with kill ${k.pid} ` +
        `(the next svc call starts a new one)`,
    ),
    { unresponsive: true },
  )
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A status check that met a kernel on its way out: the connection refused, or reset under the request. */
const stopping = (e: SvcError) => {
  const f = e as { notDelivered?: boolean; errno?: string }
  return f.notDelivered === true || f.errno === 'ECONNRESET' || f.errno === 'EPIPE'
}

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
  // Inside a lane's PID namespace no kernel's pid is to be seen, and a kernel started from here would live and die
  // in the lane: the kernel that answers with kernel.json's token is the one, and it is started from outside.
  if (io.env.SERVICE_PID_NAMESPACE === '1') return kernelSeenFromLane(paths.kernelJson, home, start)
  const current = readKernelFile(paths.kernelJson)
  const reason = staleReason(current, VERSION)
  // In a harness sandbox with a pid namespace of its own the kernel's pid is not to be seen: a kernel that answers
  // with this manifest's token is its kernel all the same.
  if (current && reason?.endsWith(' is gone') && current.version === VERSION && !(await unanswered(current)))
    return current
  if (current && !reason) {
    let why = await unanswered(current)
    // A kernel that is stopping (or being killed) refuses or resets connections a moment before it gives up
    // kernel.json, or before its process is gone.
    for (let i = 0; why && stopping(why) && i < 40; i++) {
      await sleep(50)
      if (staleReason(readKernelFile(paths.kernelJson), VERSION) !== undefined) break
      why = await unanswered(current)
    }
    if (!why) return current
    if (!staleReason(readKernelFile(paths.kernelJson), VERSION))
      throw (why as { unresponsive?: boolean }).unresponsive ? why : unreachable(current, paths.kernelJson, why)
  }
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
  let log: number
  try {
    log = openSync(paths.kernelLog, 'a', 0o600)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e)
    throw new SvcError(
      'unavailable',
      `no kernel answers for ${home}, and none can be started from here: ${paths.kernelLog} cannot be opened (${code})`,
      current
        ? `if this runs in a sandbox, let it connect to 127.0.0.1:${current.port} and run svc kernel start outside it`
        : 'run svc kernel start where the service home is writable',
    )
  }
  const main = fileURLToPath(new URL('./main.js', import.meta.url))
  // The kernel is no conversation: it keeps neither the identity nor the key of the one that happened to start it.
  const { SERVICE_CONVERSATION: _c, SERVICE_CONVERSATION_KEY: _k, ...env } = io.env
  const child = startDetached([process.execPath, main, 'kernel', 'run'], {
    stdio: ['ignore', log, log],
    env: { ...env, SERVICE_HOME: home },
    cwd: home,
  })
  closeSync(log)
  let exited = false
  child.on('exit', () => (exited = true))
  const deadline = Date.now() + START_LIMIT_MS
  if (io.isTTY) io.err('svc: starting the kernel...\n')
  while (Date.now() < deadline) {
    const k = readKernelFile(paths.kernelJson)
    if (k && !staleReason(k, VERSION) && !(await unanswered(k))) return k
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

/** The kernel that answers with kernel.json's token, waited for (a kernel being restarted outside) when `wait`. */
async function kernelSeenFromLane(path: string, home: string, wait: boolean): Promise<KernelFile | undefined> {
  const deadline = Date.now() + START_LIMIT_MS
  for (;;) {
    const k = readKernelFile(path)
    if (k && k.version === VERSION && !(await unanswered(k))) return k
    if (!wait) return undefined
    if (Date.now() > deadline)
      throw new SvcError(
        'unavailable',
        `no kernel answers for ${home} within ${START_LIMIT_MS / 1000} s, and none is started from inside a lane`,
        'run svc kernel start outside the lane, then try again',
      )
    await sleep(50)
  }
}

/** A transport to the kernel of this home. Unless `verify`, a kernel.json naming a live kernel of this version is
 * trusted without a round trip (the kernel claims it only once it listens); a refused request then says so. */
export async function kernelTransport(io: Io, verify = true): Promise<Transport> {
  let k: KernelFile | undefined
  if (!verify) {
    const current = readKernelFile(homePaths(resolveHome(io)).kernelJson)
    if (current && !staleReason(current, VERSION)) k = current
  }
  k ??= await ensureKernel(io)
  return httpTransport(k!)
}

/** A port on the kernel of this home. */
export const connect = async (io: Io, verify = true): Promise<KernelPort> =>
  remotePort(await kernelTransport(io, verify))
