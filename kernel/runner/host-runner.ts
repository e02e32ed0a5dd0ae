import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseFromKernel, type FromKernel } from '../domain/host-stream.js'
import { runnerVersionOf } from '../domain/hosts.js'
import { writeFileAtomicSync } from '../io/atomic-file.js'
import { processStartTime } from '../io/procs.js'
import { runAttach } from './host/attach.js'
import { runnerPaths, runnerRunning } from './host/files.js'
import { hostSvc } from './host/host-svc.js'
import { openJournal, type Journal } from './host/journal.js'
import { laneGit } from './host/lane-git.js'
import { laneQueue } from './host/lane-order.js'
import { serveLink } from './host/link.js'
import { reapingSet, reapLane } from './host/reap.js'
import { fileReport } from './host/report-file.js'
import { laneSupervisor } from './host/supervisor.js'

export { REPORT_SHELL } from './host/report-file.js'

/** The host runner (issue 27): one process per host that supervises every lane placed there and streams their
 * events home. It runs on the host, shipped there as one file (no package to install); the same piece can run
 * locally. `daemon <dir>` is the runner itself: lanes are its detached children (host/supervisor.ts), each event is
 * journaled (fsync) before it is sent and kept until the kernel acknowledges it (host/journal.ts), so a reconnect, a
 * lost connection or a restart of the runner loses nothing and sends nothing the kernel will apply twice. `attach
 * <dir>` is what the kernel runs over ssh (host/attach.ts): it joins its stdin and stdout to the runner's socket
 * (host/link.ts), starting the runner when none answers. */

export const HOST_RUNNER_VERSION = '1'
const POLL_MS = Number(process.env.SERVICE_HOST_POLL_MS) || 200
/** A runner with no lane alive and no kernel attached ends after this long. */
const IDLE_EXIT_MS = Number(process.env.SERVICE_HOST_IDLE_EXIT_MS) || 10 * 60 * 1000

type Link = ReturnType<typeof serveLink>
type Lanes = ReturnType<typeof laneSupervisor>

/** What the runner does with each message from the kernel. */
function handleMessage(
  m: FromKernel,
  {
    journal,
    link,
    lanes,
    reap,
  }: { journal: Journal; link: Link; lanes: Lanes; reap: (m: Extract<FromKernel, { t: 'reap' }>) => void },
) {
  if (m.t === 'resume') {
    for (const e of journal.after(m.after)) link.send({ t: 'event', event: e })
    link.beatEvery(m.beatMs, () => ({ t: 'beat', last: journal.last() }))
  } else if (m.t === 'ack') journal.ack(m.seq)
  else if (m.t === 'start') lanes.start(m)
  else if (m.t === 'stop') lanes.stop(m.lane)
  else if (m.t === 'reap') reap(m)
}

export function runDaemon(dir: string, self: string): void {
  const p = runnerPaths(dir)
  mkdirSync(p.lanes, { recursive: true, mode: 0o700 })
  const log = (line: string) => appendFileSync(p.log, `${new Date().toISOString()} ${line}\n`)
  const other = runnerRunning(p)
  if (other && other !== process.pid) {
    log(`runner ${other} already runs here; exiting`)
    return
  }
  // The start time first: a reader that finds this pid finds its start time with it.
  writeFileAtomicSync(p.pidStart, processStartTime(process.pid) ?? '')
  writeFileAtomicSync(p.pid, String(process.pid))

  let lastActive = Date.now()
  const journal = openJournal(p, (e) => link.send({ t: 'event', event: e }))
  const inLane = laneQueue(log)
  const git = laneGit({ emit: journal.emit, inLane, log })
  // The worktrees a reap asked for is working on: a --reuse start there is refused until it is done.
  const reaping = reapingSet()
  const lanes = laneSupervisor({ dir, self, emit: journal.emit, inLane, git, log, reaping })
  const reap = (m: Extract<FromKernel, { t: 'reap' }>) => reapLane({ dir, emit: journal.emit, inLane, log, reaping }, m)
  const link: Link = serveLink(p.sock, {
    attach() {
      lastActive = Date.now()
      return {
        t: 'hello',
        version: HOST_RUNNER_VERSION,
        runner: runnerVersionOf(process.argv[1] ?? ''),
        pid: process.pid,
        last: journal.last(),
        acked: journal.acked(),
      }
    },
    line(line) {
      const m = parseFromKernel(line)
      if (!m.ok) return log(m.problem)
      handleMessage(m.value, { journal, link, lanes, reap })
    },
  })

  // A lane that files a report wakes the runner (SIGUSR1), so the report leaves at once, not at the next poll.
  let woken = false
  process.on('SIGUSR1', () => {
    if (woken) return
    woken = true
    setImmediate(() => {
      woken = false
      lanes.drainAll()
    })
  })
  log(
    `runner ${process.pid} listening; ${journal.unacknowledged()} unacknowledged events, next seq ` +
      `${journal.last() + 1}`,
  )

  // Lanes: their reports, and the end of those started by an earlier runner (known from their exit file).
  setInterval(() => {
    if (lanes.sweep() || link.attached()) lastActive = Date.now()
    else if (Date.now() - lastActive > IDLE_EXIT_MS) {
      log('no lane alive and no kernel attached; exiting')
      link.close()
      rmSync(p.pid, { force: true })
      rmSync(p.pidStart, { force: true })
      process.exit(0)
    }
  }, POLL_MS)
}

const [mode, dir, ...rest] = process.argv.slice(2)
const self = process.argv[1] ?? ''
// Run as a program (the shipped file, or this module), not when imported.
if (self && import.meta.url === pathToFileURL(self).href) {
  if (mode === 'daemon' && dir) runDaemon(dir, self)
  else if (mode === 'svc')
    process.exit(hostSvc(process.argv.slice(3), process.env, process.cwd(), () => readFileSync(0, 'utf8')))
  else if (mode === 'attach' && dir) runAttach(dir, self).then((c) => process.exit(c))
  else if (mode === 'report' && dir) {
    const chunks: Buffer[] = []
    process.stdin.on('data', (d: Buffer) => chunks.push(d))
    process.stdin.on('end', () => {
      fileReport(dir, rest[0] ?? 'done', Buffer.concat(chunks).toString('utf8'))
      process.exit(0)
    })
  } else {
    process.stderr.write('usage: host-runner (daemon|attach) <dir> | report <outbox> [status]\n')
    process.exit(1)
  }
}
