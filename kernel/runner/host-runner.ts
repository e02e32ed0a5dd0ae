import { execFileSync, spawn } from 'node:child_process'
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { createConnection, createServer, type Socket } from 'node:net'
import { join, resolve as resolvePath } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { createInterface } from 'node:readline'
import {
  journalAfterAck,
  nextSeq,
  parseFromKernel,
  toResend,
  type FromKernel,
  type HostEvent,
  planRemoteReap,
  snapshotRef,
  type HostEventBody,
  type ReportFacts,
} from '../domain/host-stream.js'
import { git, gitTry, worktreeGitDir } from '../io/git.js'
import { keepTree } from '../io/git-patch.js'
import { writeFileAtomicSync } from '../io/atomic-file.js'
import { snapshotTree } from '../io/git-snapshot.js'

/** The host runner (issue 27): one process per host that supervises every lane placed there and streams their
 * events home. It runs on the host, shipped there as one file (no package to install); the same piece can run
 * locally. `daemon <dir>` is the runner itself: lanes are its detached children, each event is journaled (fsync)
 * before it is sent and kept until the kernel acknowledges it, so a reconnect, a lost connection or a restart of the
 * runner loses nothing and sends nothing the kernel will apply twice. `attach <dir>` is what the kernel runs over
 * ssh: it joins its stdin and stdout to the runner's socket, starting the runner when none answers. */

export const HOST_RUNNER_VERSION = '1'
const POLL_MS = Number(process.env.SERVICE_HOST_POLL_MS) || 200
/** A runner with no lane alive and no kernel attached ends after this long. */
const IDLE_EXIT_MS = Number(process.env.SERVICE_HOST_IDLE_EXIT_MS) || 10 * 60 * 1000

const paths = (dir: string) => ({
  sock: join(dir, 'runner.sock'),
  pid: join(dir, 'runner.pid'),
  journal: join(dir, 'journal.jsonl'),
  acked: join(dir, 'acked'),
  lanes: join(dir, 'lanes'),
  log: join(dir, 'runner.log'),
})

const lanePaths = (dir: string, lane: string) => {
  const d = join(paths(dir).lanes, lane)
  return {
    dir: d,
    script: join(d, 'script.sh'),
    pid: join(d, 'pid'),
    exit: join(d, 'exit-code'),
    ended: join(d, 'ended'),
    outbox: join(d, 'outbox'),
    /** Messages told to the lane, one after another (the kernel appends them over ssh): its $SERVICE_INBOX. */
    inbox: join(d, 'inbox.txt'),
    /** The lane's worktree, and when it was started (ignore rules written after it may hide the lane's work). */
    cwd: join(d, 'cwd'),
    started: join(d, 'started'),
    /** Written once the worktree is removed: the held commit that has every byte of it. */
    reaped: join(d, 'reaped'),
  }
}

export async function snapshotLane(lane: string, cwd: string, startedAt: number, id: string) {
  if (!worktreeGitDir(cwd)) return undefined
  const tree = await snapshotTree(cwd, startedAt)
  return keepTree(cwd, tree, snapshotRef(lane, id), `svc: lane ${lane}, snapshot ${id}`)
}

const readText = (p: string) => {
  try {
    return readFileSync(p, 'utf8')
  } catch {
    return undefined
  }
}

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The lane's script runs under a small shell that writes its exit code to a file, so that the code is known even
 * when the runner that started it is gone. */
const WRAPPER = 'bash -e "$1"; code=$?; echo $code > "$2.tmp" && mv "$2.tmp" "$2"; exit $code'

export function runDaemon(dir: string): void {
  const p = paths(dir)
  mkdirSync(p.lanes, { recursive: true, mode: 0o700 })
  const log = (line: string) => appendFileSync(p.log, `${new Date().toISOString()} ${line}\n`)
  const other = Number(readText(p.pid))
  if (other && other !== process.pid && pidAlive(other)) {
    log(`runner ${other} already runs here; exiting`)
    return
  }
  writeFileAtomicSync(p.pid, String(process.pid))

  let acked = Number(readText(p.acked)) || 0
  let journal: HostEvent[] = journalAfterAck(
    (readText(p.journal) ?? '')
      .split('\n')
      .filter(Boolean)
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as HostEvent]
        } catch {
          return [] // a line cut by a crash mid-write was never sent
        }
      }),
    acked,
  )
  let seq = nextSeq(journal, acked)
  const journalFd = openSync(p.journal, 'a', 0o600)
  let client: Socket | undefined
  let beat: NodeJS.Timeout | undefined
  let ackTimer: NodeJS.Timeout | undefined
  let lastActive = Date.now()

  const send = (e: HostEvent) => client?.write(JSON.stringify({ t: 'event', event: e }) + '\n')
  // Group commit: the events of one turn are written and synced together, then sent; none leaves before its sync.
  // What made an event (a report file, a lane's end) is let go only after the event is synced (`done`).
  let unsynced: { e: HostEvent; done?: () => void }[] = []
  const flush = () => {
    const batch = unsynced
    unsynced = []
    appendFileSync(journalFd, batch.map((b) => JSON.stringify(b.e) + '\n').join(''))
    fsyncSync(journalFd)
    for (const b of batch) {
      b.done?.()
      send(b.e)
    }
  }
  const emit = (lane: string, body: HostEventBody, done?: () => void) => {
    const e = { seq: seq++, at: Date.now(), lane, ...body } as HostEvent
    journal.push(e)
    if (!unsynced.length) setImmediate(flush)
    unsynced.push({ e, done })
  }
  /** Report files and lane ends whose event is made but not yet synced: never made twice. */
  const inFlight = new Set<string>()
  /** Each lane's events in the order they happened: a report waits for its snapshot, and the lane's end for them. */
  const laneWork = new Map<string, Promise<void>>()
  const inLane = (lane: string, work: () => Promise<void> | void) => {
    const next = (laneWork.get(lane) ?? Promise.resolve()).then(work).catch((e: Error) => log(`${lane}: ${e.message}`))
    laneWork.set(lane, next)
    void next.then(() => laneWork.get(lane) === next && laneWork.delete(lane))
  }

  const ended = (lane: string, code: number | null, seen: 'waited' | 'exit-file' | 'gone') => {
    const lp = lanePaths(dir, lane)
    if (existsSync(lp.ended) || inFlight.has(lp.ended)) return
    drainOutbox(lane)
    inFlight.add(lp.ended)
    inLane(lane, () =>
      emit(lane, { kind: 'exited', code, seen }, () => {
        writeFileAtomicSync(lp.ended, String(code))
        inFlight.delete(lp.ended)
      }),
    )
  }

  /** Reports a lane filed (files in its outbox, written whole by rename), in the order they were filed, each after
   * a snapshot of the lane's worktree that it carries: the report is about those bytes. */
  const drainOutbox = (lane: string) => {
    const lp = lanePaths(dir, lane)
    let names: string[] = []
    try {
      names = readdirSync(lp.outbox)
        .filter((n) => n.endsWith('.report'))
        .sort()
    } catch {
      return
    }
    for (const n of names) {
      const file = join(lp.outbox, n)
      if (inFlight.has(file)) continue
      inFlight.add(file)
      const forget = () => {
        unlinkSync(file)
        inFlight.delete(file)
      }
      const id = n.slice(0, -'.report'.length)
      inLane(lane, async () => {
        let body: HostEventBody
        try {
          // A report file is its status on the first line and its body after it: a shell writes one as easily as Node.
          // `svc lane report` adds, after a tab, what the kernel checks a report against (domain/host-stream.ts: ReportFacts).
          const text = readFileSync(file, 'utf8')
          const cut = text.indexOf('\n')
          const [word, factsText] = (cut < 0 ? text : text.slice(0, cut)).split('\t', 2)
          const status = word.trim()
          if (status !== 'done' && status !== 'blocked' && status !== 'failed') throw new Error(`status ${status}`)
          body = {
            kind: 'report',
            id,
            status,
            body: cut < 0 ? '' : text.slice(cut + 1),
            ...(factsText ? { facts: JSON.parse(factsText) as ReportFacts } : {}),
          }
        } catch (e) {
          return emit(
            lane,
            { kind: 'refused', reason: `report ${n} could not be read: ${(e as Error).message}` },
            forget,
          )
        }
        const cwd = readText(lp.cwd)
        try {
          const commit = cwd && (await snapshotLane(lane, cwd, Number(readText(lp.started)) || 0, id))
          if (commit) body = { ...body, commit }
        } catch (e) {
          // The report still goes home, without a commit: the kernel refuses a report whose bytes it cannot hold.
          log(`${lane}: no snapshot for report ${id}: ${(e as Error).message}`)
        }
        emit(lane, body, forget)
      })
    }
  }

  const start = (m: Extract<FromKernel, { t: 'start' }>) => {
    const lp = lanePaths(dir, m.lane)
    if (existsSync(lp.dir)) return // started already: a start sent again after a reconnect
    mkdirSync(lp.outbox, { recursive: true, mode: 0o700 })
    writeFileSync(lp.script, m.script, { mode: 0o700 })
    writeFileSync(lp.cwd, m.dir)
    writeFileSync(lp.started, String(Date.now()))
    let child
    try {
      mkdirSync(m.dir, { recursive: true })
      child = spawn('bash', ['-c', WRAPPER, 'lane', lp.script, lp.exit], {
        cwd: m.dir,
        env: {
          ...process.env,
          // `svc` in the lane's shell (and every bash it starts) is this file's `svc` mode.
          SERVICE_HOST_RUNNER: self,
          SERVICE_INBOX: lp.inbox,
          'BASH_FUNC_svc%%': `() { '${process.execPath}' '${self}' svc "$@"\n}`,
          ...m.env,
          SERVICE_HOST_OUTBOX: lp.outbox,
        },
        detached: true,
        stdio: 'ignore',
      })
    } catch (e) {
      emit(m.lane, { kind: 'refused', reason: `cannot start: ${(e as Error).message}` })
      writeFileAtomicSync(lp.ended, 'null')
      return
    }
    child.on('error', (e) => {
      if (existsSync(lp.ended)) return
      emit(m.lane, { kind: 'refused', reason: `cannot start: ${e.message}` })
      writeFileAtomicSync(lp.ended, 'null')
    })
    if (!child.pid) return
    writeFileAtomicSync(lp.pid, String(child.pid))
    emit(m.lane, { kind: 'started', pid: child.pid })
    child.on('exit', (code) => ended(m.lane, code, 'waited'))
  }

  const stop = (lane: string) => {
    const pid = Number(readText(lanePaths(dir, lane).pid))
    if (pid)
      try {
        process.kill(-pid, 'SIGTERM')
      } catch {}
  }

  /** A reap: the worktree removed only when a fresh snapshot of it is the one the kernel holds (planRemoteReap). */
  const reap = (m: Extract<FromKernel, { t: 'reap' }>) => {
    const lp = lanePaths(dir, m.lane)
    inLane(m.lane, async () => {
      // Reaped already: the event is in the journal and goes home after a reconnect like any other.
      if (!existsSync(lp.dir) || existsSync(lp.reaped)) return
      const pid = Number(readText(lp.pid))
      const cwd = readText(lp.cwd) ?? ''
      const alive = pid > 0 && pidAlive(pid) && readText(lp.exit) === undefined
      const gitWorktree = !!cwd && !!worktreeGitDir(cwd)
      let now: { id: string; commit: string; tree: string; parent: string } | undefined
      let held: { tree: string; parent: string } | undefined
      if (!alive && gitWorktree) {
        const id = `reap-${Date.now()}`
        const commit = await snapshotLane(m.lane, cwd, Number(readText(lp.started)) || 0, id)
        if (commit) {
          const [tree, parent] = (await git(cwd, ['rev-parse', `${commit}^{tree}`, `${commit}^`])).trim().split('\n')
          now = { id, commit, tree, parent }
        }
        const h = m.held && (await gitTry(cwd, ['rev-parse', `${m.held}^{tree}`, `${m.held}^`]))
        if (h && h.ok) {
          const [t, p] = h.stdout.trim().split('\n')
          held = { tree: t, parent: p }
        }
      }
      const plan = planRemoteReap({ alive, gitWorktree, now, held })
      if (plan.do === 'refuse') return emit(m.lane, { kind: 'refused', reason: `reap: ${plan.reason}` })
      if (plan.do === 'hold') return emit(m.lane, { kind: 'snapshot', id: now!.id, commit: now!.commit })
      await removeWorktree(m.lane, cwd)
      writeFileAtomicSync(lp.reaped, m.held!)
      emit(m.lane, { kind: 'reaped', commit: m.held! })
    })
  }

  const onLine = (line: string) => {
    const m = parseFromKernel(line)
    if (!m.ok) return log(m.problem)
    const msg = m.value
    if (msg.t === 'resume') {
      for (const e of toResend(journal, msg.after)) send(e)
      // The attached kernel hears from the runner this often when nothing happens (a silent host is lost).
      clearInterval(beat)
      if (msg.beatMs)
        beat = setInterval(() => client?.write(JSON.stringify({ t: 'beat', last: seq - 1 }) + '\n'), msg.beatMs)
    } else if (msg.t === 'ack') {
      if (msg.seq <= acked) return
      acked = msg.seq
      journal = journalAfterAck(journal, acked)
      // Kept lazily: an ack lost in a crash only means events sent again, which the kernel skips.
      if (!ackTimer)
        ackTimer = setTimeout(() => {
          ackTimer = undefined
          writeFileAtomicSync(p.acked, String(acked))
          // Everything acknowledged: the journal starts again empty (what was in it is held at home).
          if (!journal.length && !unsynced.length) writeFileSync(p.journal, '')
        }, 50)
    } else if (msg.t === 'start') start(msg)
    else if (msg.t === 'stop') stop(msg.lane)
    else if (msg.t === 'reap') reap(msg)
  }

  try {
    unlinkSync(p.sock)
  } catch {}
  const server = createServer((socket) => {
    client?.destroy()
    client = socket
    lastActive = Date.now()
    socket.write(
      JSON.stringify({ t: 'hello', version: HOST_RUNNER_VERSION, pid: process.pid, last: seq - 1, acked }) + '\n',
    )
    createInterface({ input: socket }).on('line', onLine)
    socket.on('error', () => {})
    socket.on('close', () => {
      if (client === socket) client = undefined
    })
  })
  server.listen(p.sock)
  // A lane that files a report wakes the runner (SIGUSR1), so the report leaves at once, not at the next poll.
  let woken = false
  process.on('SIGUSR1', () => {
    if (woken) return
    woken = true
    setImmediate(() => {
      woken = false
      for (const lane of readdirSync(p.lanes)) if (!existsSync(lanePaths(dir, lane).ended)) drainOutbox(lane)
    })
  })
  log(`runner ${process.pid} listening; ${journal.length} unacknowledged events, next seq ${seq}`)

  // Lanes: their reports, and the end of those started by an earlier runner (known from their exit file).
  setInterval(() => {
    let alive = 0
    for (const lane of readdirSync(p.lanes)) {
      const lp = lanePaths(dir, lane)
      if (existsSync(lp.ended)) continue
      drainOutbox(lane)
      const pid = Number(readText(lp.pid))
      if (pid && pidAlive(pid)) {
        alive++
        continue
      }
      const code = readText(lp.exit)
      if (code !== undefined) ended(lane, Number(code.trim()), 'exit-file')
      else if (pid && !pidAlive(pid)) ended(lane, null, 'gone')
    }
    if (alive || client) lastActive = Date.now()
    else if (Date.now() - lastActive > IDLE_EXIT_MS) {
      log('no lane alive and no kernel attached; exiting')
      server.close()
      rmSync(p.pid, { force: true })
      process.exit(0)
    }
  }, POLL_MS)
}

/** Remove a lane's worktree and its snapshot refs (their commits are held at home): a linked worktree through git,
 * so its repository forgets it; a repository of its own as a directory. */
async function removeWorktree(lane: string, cwd: string) {
  const [gitDir, common] = (await git(cwd, ['rev-parse', '--absolute-git-dir', '--git-common-dir'])).trim().split('\n')
  const commonDir = resolvePath(cwd, common)
  const refs = (await git(cwd, ['for-each-ref', '--format=%(refname)', `refs/svc/snapshots/${lane}/`])).trim()
  if (refs)
    await git(
      cwd,
      ['update-ref', '--stdin'],
      {},
      refs
        .split('\n')
        .map((r) => `delete ${r}\n`)
        .join(''),
    )
  if (resolvePath(gitDir) !== commonDir) await git(commonDir, ['worktree', 'remove', '--force', cwd])
  else rmSync(cwd, { recursive: true, force: true })
}

/** `attach`: stdin and stdout joined to the runner's socket; the runner started first when none answers. */
export async function runAttach(dir: string, self: string): Promise<number> {
  const p = paths(dir)
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
    spawn(process.execPath, [self, 'daemon', dir], { detached: true, stdio: ['ignore', out, out] }).unref()
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

/** The lane's `svc lane report` on a host: the report is written whole (by rename) into the lane's outbox as its
 * status line and its body, and the runner is woken to send it home. A shell can do the same: see REPORT_SHELL. */
export function fileReport(outbox: string, status: string, body: string, facts?: ReportFacts): void {
  const name = `${(Date.now() * 1000).toString().padStart(16, '0')}-${process.pid}.report`
  writeFileAtomicSync(join(outbox, name), `${status}${facts ? `\t${JSON.stringify(facts)}` : ''}\n${body}`)
  const runner = Number(readText(join(outbox, '..', '..', '..', 'runner.pid')))
  if (runner)
    try {
      process.kill(runner, 'SIGUSR1')
    } catch {} // no runner now: the next one finds the report in the outbox
}

/** A report filed from a lane's shell with no Node start: status as $1, body on stdin. Named by the time of filing in
 * microseconds (as `fileReport` names one), so the runner sends a lane's reports in order and the time home is known.
 * Every step but the copy of the body and the rename is a shell builtin: on a busy host each program started costs
 * milliseconds before the report leaves. */
export const REPORT_SHELL =
  't=${EPOCHREALTIME/[.,]/}; f="$SERVICE_HOST_OUTBOX/$t-$$"; { echo "$1"; cat; } > "$f.tmp" && mv "$f.tmp" "$f.report" && ' +
  '{ read -r p < "$SERVICE_HOST_OUTBOX/../../../runner.pid" && kill -USR1 "$p"; } 2>/dev/null; true'

/** `svc` in a lane's shell on a host: `svc lane report` with the options it has at home; the lane's git state and
 * verdict file go with the report, and the kernel checks them by SPEC.md's report rules when it arrives. Anything
 * else is run at home. Exit 0 for done, 4 for blocked or failed (as at home), 1 for a usage error. */
export function hostSvc(args: string[], env: NodeJS.ProcessEnv, cwd: string, stdin: () => string): number {
  const fail = (m: string) => {
    process.stderr.write(`svc: ${m}\n`)
    return 1
  }
  if (args[0] !== 'lane' && args[0] !== 'worker')
    return fail(`on a host a lane runs only svc lane report; run svc ${args[0] ?? ''} at home`)
  if (args[1] !== 'report')
    return fail(`on a host a lane runs only svc lane report; run svc ${args.slice(0, 2).join(' ')} at home`)
  if (!env.SERVICE_HOST_OUTBOX) return fail('not inside a lane')
  let o
  try {
    o = parseArgs({
      args: args.slice(2),
      strict: true,
      options: {
        file: { type: 'string' },
        stdin: { type: 'boolean' },
        status: { type: 'string' },
        verdict: { type: 'string' },
        defects: { type: 'string' },
        'verdict-file': { type: 'string' },
        'allow-unpushed': { type: 'boolean' },
      },
    }).values
  } catch (e) {
    return fail((e as Error).message)
  }
  const status = o.status ?? 'done'
  if (!['done', 'blocked', 'failed'].includes(status)) return fail(`--status ${status}: one of done, blocked, failed`)
  if ((o.file === undefined) === !o.stdin) return fail('give the report with --file <path> or --stdin')
  const read = (p: string) => readFileSync(p.startsWith('/') ? p : join(cwd, p), 'utf8')
  let body: string
  let verdictText: string | undefined
  try {
    body = o.file !== undefined ? read(o.file) : stdin()
    verdictText = o['verdict-file'] === undefined ? undefined : read(o['verdict-file'])
  } catch (e) {
    return fail((e as Error).message)
  }
  let git: string | undefined
  try {
    git = execFileSync('git', ['status', '--porcelain=v2', '--branch', '--untracked-files=normal'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...env, GIT_OPTIONAL_LOCKS: '0' },
    })
  } catch {} // not a worktree (a play directory): no git facts
  const defects = o.defects === undefined ? undefined : Number(o.defects)
  if (defects !== undefined && !(Number.isInteger(defects) && defects >= 0))
    return fail(`--defects ${o.defects}: a whole number, 0 or more`)
  fileReport(env.SERVICE_HOST_OUTBOX, status, body, {
    ...(git !== undefined ? { git } : {}),
    ...(o.verdict !== undefined ? { verdict: o.verdict } : {}),
    ...(defects !== undefined ? { defects } : {}),
    ...(verdictText !== undefined ? { verdictText, verdictPath: o['verdict-file'] } : {}),
    ...(o['allow-unpushed'] ? { allowUnpushed: true } : {}),
  })
  return status === 'done' ? 0 : 4
}

const [mode, dir, ...rest] = process.argv.slice(2)
const self = process.argv[1] ?? ''
// Run as a program (the shipped file, or this module), not when imported.
if (self && import.meta.url === pathToFileURL(self).href) {
  if (mode === 'daemon' && dir) runDaemon(dir)
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
