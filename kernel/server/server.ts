import { serve } from '@hono/node-server'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { createApp } from '../../handlers/app.js'
import { CONV_FILE_NAMES, convFiles, homePaths } from '../io/home.js'
import { mayStillChange, type ConversationRecord } from '../domain/conversation.js'
import { realAdapters } from '../io/adapters.js'
import { createFileOnce } from '../io/atomic-file.js'
import { ConfigFile } from '../io/config.js'
import { fileLog } from '../io/log.js'
import { processStartTime } from '../io/procs.js'
import { testNumber, testTiming } from '../io/test-timing.js'
import { Store } from '../io/store.js'
import { watchAgents, watchWorktrees } from '../io/watch.js'
import { peers } from '../io/peer.js'
import { kernelPort } from './kernel.js'
import {
  readKernelFile,
  readLastPort,
  writeLastPort,
  readManifestToken,
  setAsideKernelFile,
  staleReason,
  type KernelFile,
} from '../io/kernel-file.js'
import { checkManifest } from '../domain/self-check.js'
import { HTTP_LIMITS, limitConnections, serverOptions, type HttpLimits } from './http-limits.js'
import { KernelContext, type KernelEvent } from '../services/context.js'
import { Notifier } from '../services/notifier.js'
import { closeMasters } from '../services/hosts.js'
import { reconcile } from '../services/reconcile.js'
import { settleInterruptedLaunches } from '../services/launch-intents.js'
import { deliverPending } from '../services/worker-report.js'
import { Runners } from '../services/runners.js'
import { RuntimeFacts } from '../services/runtime-facts.js'
import { warmGitFacts, watchedGitFacts } from '../services/git-watch.js'
import { gitFactsFile } from '../io/git-facts-file.js'
import { VERSION } from '../io/version.js'

const RECONCILE_EVERY_MS = 15_000
/** How long a conversation may go without a runner before the reconcile marks it ended (its runner may be starting). */
const RECONCILE_GRACE_MS = testTiming('RECONCILE_GRACE', 10_000)
const SELF_CHECK_EVERY_MS = 2_000

/** The limits of the kernel's HTTP server, each of which a test build may set lower. */
function httpLimits(): HttpLimits {
  return {
    headersTimeoutMs: testNumber('HEADERS_TIMEOUT_MS') ?? HTTP_LIMITS.headersTimeoutMs,
    requestTimeoutMs: testNumber('REQUEST_TIMEOUT_MS') ?? HTTP_LIMITS.requestTimeoutMs,
    idleTimeoutMs: testNumber('IDLE_TIMEOUT_MS') ?? HTTP_LIMITS.idleTimeoutMs,
    maxConnections: testNumber('MAX_CONNECTIONS') ?? HTTP_LIMITS.maxConnections,
  }
}

/** The kernel process: one per SERVICE_HOME. Listens on the loopback, then claims kernel.json exclusively. */
export async function runKernel(home: string): Promise<void> {
  const paths = homePaths(home)
  mkdirSync(home, { recursive: true, mode: 0o700 })
  chmodSync(home, 0o700)
  const log = fileLog(paths.kernelLog)
  const fatal = (message: string): never => {
    log('error', `fatal: ${message}`)
    process.stderr.write(`fatal: ${message}\n`)
    process.exit(1)
  }
  logEveryExit(log, fatal)

  let store: Store
  try {
    store = await Store.open(home, log)
  } catch (e) {
    return fatal((e as Error).message)
  }
  const svcMain = fileURLToPath(new URL('../../cli/main.js', import.meta.url))
  const svcBinDir = join(home, 'bin')
  mkdirSync(svcBinDir, { recursive: true, mode: 0o700 })
  writeFileSync(join(svcBinDir, 'svc'), `#!/bin/sh\nexec '${process.execPath}' '${svcMain}' "$@"\n`, { mode: 0o755 })

  const io = realAdapters()
  const facts = new RuntimeFacts(home, io.files, log)
  const ctx = new KernelContext(
    home,
    store,
    facts,
    new Runners(home, svcMain, facts, log, io),
    new ConfigFile(paths.projects),
    log,
    svcBinDir,
    VERSION,
    io,
  )
  const startedAt = Date.now()
  const token = randomBytes(32).toString('hex')
  let boundPort = 0
  let stopping = false
  const timers: NodeJS.Timeout[] = []
  let watcher: ReturnType<typeof watchAgents> | undefined

  const stop = async (why: string) => {
    if (stopping) return
    stopping = true
    log('info', `stopping: ${why}`)
    timers.forEach(clearInterval)
    if (readKernelFile(paths.kernelJson)?.token === token) {
      try {
        unlinkSync(paths.kernelJson)
      } catch {}
    }
    await watcher?.close().catch(() => {})
    await gitFacts.close().catch(() => {})
    ctx.hostLanes.close()
    // Connection masters to hosts would outlive the kernel by their persist time: they end with it.
    await Promise.race([closeMasters(ctx), new Promise((r) => setTimeout(r, 1000).unref())])
    server.close()
    server.closeAllConnections?.()
    setTimeout(() => process.exit(0), 200).unref()
  }

  const limits = httpLimits()
  let watchProblem = ''
  const gitFacts = watchedGitFacts(
    ctx,
    (onChange) =>
      watchWorktrees(onChange, (e) => {
        // Logged once per kind of problem: the limit of watches, once reached, would repeat for every worktree.
        if (e.message === watchProblem) return
        watchProblem = e.message
        log('warn', `watching lane worktrees: ${e.message}; their git facts are read again on a report or a new state`)
      }),
    gitFactsFile(paths.gitFacts, (m) => log('warn', m)),
  )
  const port = kernelPort(ctx, {
    startedAt,
    port: () => boundPort,
    stop: () => void stop('kernel stop requested'),
    gitFacts,
  })
  const app = createApp()
  const heartbeatMs = testNumber('HEARTBEAT_MS')
  let ready!: () => void
  const readyP = new Promise<void>((r) => (ready = r))
  const server = serve({
    // Each request runs knowing its connection, so that a service can ask who is behind it (io/peer).
    fetch: async (req, env) => {
      await readyP
      const socket = env.incoming?.socket as import('node:net').Socket | undefined
      if (!socket) return app.fetch(req, { port, token, heartbeatMs })
      const ends = () => ({
        remotePort: socket.remotePort ?? 0,
        localPort: socket.localPort ?? 0,
        remoteAddress: socket.remoteAddress,
        localAddress: socket.localAddress,
      })
      return peers.within(socket, ends, () => app.fetch(req, { port, token, heartbeatMs }))
    },
    hostname: '127.0.0.1',
    // The port of the kernel before this one, first: the deck pages it served reconnect to this one by themselves.
    port: readLastPort(paths.kernelPort),
    serverOptions: serverOptions(limits),
  }) as import('node:http').Server
  limitConnections(server, limits, log)
  try {
    await listening(server)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw e
    log('info', `port ${readLastPort(paths.kernelPort)} of the last kernel is taken (${code}); listening on another`)
    server.listen(0, '127.0.0.1')
    await listening(server)
  }
  boundPort = (server.address() as AddressInfo).port

  const manifest: KernelFile = {
    pid: process.pid,
    start: processStartTime(process.pid) ?? '',
    port: boundPort,
    token,
    version: VERSION,
    startedAt,
  }
  for (let attempt = 0; ; attempt++) {
    if (await createFileOnce(paths.kernelJson, JSON.stringify(manifest) + '\n', 0o600)) break
    const other = readKernelFile(paths.kernelJson)
    const reason = staleReason(other, VERSION)
    if (!reason || (other && processStartTime(other.pid) === other.start)) {
      log('info', `another kernel (pid ${other?.pid}) holds ${paths.kernelJson}; this one (pid ${process.pid}) exits`)
      server.close()
      process.exit(0)
    }
    if (attempt >= 5) fatal(`could not claim ${paths.kernelJson}`)
    log('warn', `replacing stale ${paths.kernelJson}: ${reason}`)
    setAsideKernelFile(paths.kernelJson, other)
  }
  log('info', `kernel ${VERSION} pid ${process.pid} listening on 127.0.0.1:${boundPort}, home ${home}`)
  try {
    writeLastPort(paths.kernelPort, boundPort)
  } catch (e) {
    log('warn', `could not record the port in ${paths.kernelPort}: ${(e as Error).message}`)
  }
  // From the moment it holds the manifest: a kernel whose manifest is gone or names another stops, even if it never
  // became ready (so a removed home leaves no kernel behind).
  let lastProblem = ''
  timers.push(
    setInterval(
      () => {
        const check = checkManifest(readManifestToken(paths.kernelJson), token, paths.kernelJson)
        if (check.verdict === 'stop') void stop(check.why)
        else if (check.verdict === 'keep-but-log' && check.why !== lastProblem) log('warn', check.why)
        lastProblem = check.verdict === 'keep-but-log' ? check.why : ''
      },
      testNumber('SELF_CHECK_MS') ?? SELF_CHECK_EVERY_MS,
    ),
  )

  for (const d of store.orphanDirs)
    log('warn', `conversation directory without a record (an interrupted creation): ${d}`)
  const first = await reconcile(ctx, { graceMs: RECONCILE_GRACE_MS })
  ctx.hostLanes.resume()
  if (first.adopted.length) log('info', `re-adopted runners of ${first.adopted.map((n) => 'conv-' + n).join(', ')}`)
  // Before any launch is served: a launch a killed kernel left unfinished is finished or taken back.
  await settleInterruptedLaunches(ctx)
  // A worker report stored before a kill cut its delivery short: its starter is told now (once).
  void deliverPending(ctx).catch((e) => log('error', `worker reports: ${e.message}`))

  // Watch the directories of conversations that can still change; a new conversation is added as it is created.
  const changing = (r: ConversationRecord) => mayStillChange(r, () => ctx.facts.get(r.name).state)
  watcher = watchAgents(
    store
      .all()
      .filter(changing)
      .map((r) => convFiles(home, r.name).dir),
    (e) => {
      ctx.facts.invalidate(e.name)
      ctx.emit({
        name: e.name,
        what: e.file === CONV_FILE_NAMES.reports ? 'report' : e.file === CONV_FILE_NAMES.record ? 'record' : 'state',
        fromWatcher: true,
      })
    },
  )
  const w = watcher
  ctx.events.on('change', (e: KernelEvent) => {
    if (e.what === 'git' || (e.fromWatcher && e.what !== 'state')) return
    const rec = store.getByName(e.name)
    if (rec && changing(rec)) w.add(convFiles(home, e.name).dir)
    else if (rec) w.remove(convFiles(home, e.name).dir)
  })
  await watcher.ready
  new Notifier(ctx, paths.notify).start()
  ready()
  void warmGitFacts(ctx, gitFacts).catch((e) => log('error', `git facts: ${e.message}`))
  void store
    .removeStaleTemps()
    .then((removed) => removed.forEach((t) => log('warn', `removed temp file of an interrupted write: ${t}`)))
    .catch((e) => log('error', `sweep: ${e.message}`))

  timers.push(
    setInterval(
      () => void reconcile(ctx, { graceMs: RECONCILE_GRACE_MS }).catch((e) => log('error', `reconcile: ${e.message}`)),
      RECONCILE_EVERY_MS,
    ),
  )
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void stop(sig))
}

/** The server's listen has succeeded, or failed with its error. */
function listening(server: import('node:http').Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const ok = () => {
      server.off('error', fail)
      resolve()
    }
    const fail = (e: Error) => {
      server.off('listening', ok)
      reject(e)
    }
    server.once('listening', ok)
    server.once('error', fail)
  })
}

/** Whatever ends the kernel leaves its reason in kernel.log: an error nothing caught, or the exit itself. */
function logEveryExit(log: ReturnType<typeof fileLog>, fatal: (message: string) => never) {
  process.on('uncaughtException', (e) => fatal(`uncaught: ${e.stack ?? e.message}`))
  process.on('unhandledRejection', (e) => fatal(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`))
  process.on('exit', (code) => log(code ? 'error' : 'info', `exited with code ${code}`))
}
