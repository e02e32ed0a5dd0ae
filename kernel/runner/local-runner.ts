import { existsSync, unlinkSync } from 'node:fs'
import { createConnection, createServer, type Socket } from 'node:net'
import { createInterface } from 'node:readline'
import { homePaths } from '../io/home.js'
import { parseRunnerRequest, type RunnerAnswer } from '../domain/runner-link.js'
import { runLane } from './runner.js'

/** A runner with no lane and no request waits this long for the next before it exits. */
const IDLE_EXIT_MS = 2000

/** `svc runner serve`: the one process that drives every local lane of a home (the host runner's counterpart here).
 * The kernel asks it, on the home's runner socket, to start a lane; each lane's harness runs under a small
 * supervisor of its own (io/subreaper), the root of that lane's process tree, which dies with this process: a crash
 * of the runner ends its lanes, and the kernel sees their runners gone. It exits once it has had no lane for a
 * moment; the kernel starts the next one when it needs one. */
export async function serveLanes(home: string): Promise<number> {
  const { runnerSocket } = homePaths(home)
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} runner ${process.pid}: ${line}\n`)
  if (existsSync(runnerSocket)) {
    if (await answers(runnerSocket)) {
      log('another runner serves this home; exiting')
      return 0
    }
    unlinkSync(runnerSocket)
  }
  const lanes = new Set<string>()
  let connections = 0
  let idleTimer: NodeJS.Timeout | undefined
  let closing = false
  const idle = () => {
    clearTimeout(idleTimer)
    if (lanes.size || connections) return
    idleTimer = setTimeout(() => {
      if (lanes.size || connections) return
      closing = true
      server.close()
      try {
        unlinkSync(runnerSocket)
      } catch {}
      log('no lane left; exiting')
      process.exit(0)
    }, IDLE_EXIT_MS)
  }

  const serve = (socket: Socket) => {
    connections++
    clearTimeout(idleTimer)
    socket.on('error', () => {})
    socket.once('close', () => {
      connections--
      idle()
    })
    const answer = (a: RunnerAnswer) => socket.end(JSON.stringify(a) + '\n')
    const lines = createInterface({ input: socket })
    lines.on('error', () => {}) // the socket's error, passed on (handled above)
    lines.once('line', (line) => {
      const r = parseRunnerRequest(line)
      if (typeof r === 'string') return answer({ t: 'refused', problem: r })
      if (closing) return answer({ t: 'refused', problem: 'the runner is exiting' })
      if (lanes.has(r.name)) return answer({ t: 'refused', problem: `conv ${r.name} runs already` })
      lanes.add(r.name)
      let told = false
      const started = (runner: { pid: number; start: string } | undefined) => {
        if (told) return
        told = true
        answer({ t: 'started', runner })
      }
      runLane(home, r.name, r.env, started)
        .catch((e) => {
          log(`conv-${r.name}: ${(e as Error).stack ?? e}`)
          if (!told) answer({ t: 'refused', problem: (e as Error).message })
        })
        .finally(() => {
          lanes.delete(r.name)
          idle()
        })
    })
  }

  const server = createServer({ allowHalfOpen: true }, serve)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(runnerSocket, () => resolve())
  })
  server.on('error', (e) => log(`socket: ${e.message}`))
  log('listening')
  idle()
  return new Promise<number>(() => {}) // runs until idle (above)
}

/** Whether a runner answers on this socket. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path)
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
  })
}
