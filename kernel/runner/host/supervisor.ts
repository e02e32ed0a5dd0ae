import { existsSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FromKernel, HostEventBody } from '../../domain/host-stream.js'
import { writeFileAtomicSync } from '../../io/atomic-file.js'
import { startDetached } from '../../io/process.js'
import { processStartTime } from '../../io/procs.js'
import { laneAlive, laneGroup, lanePaths, readText, runnerPaths } from './files.js'
import type { Journal } from './journal.js'
import type { InLane } from './lane-order.js'
import type { LaneGit } from './lane-git.js'
import type { Reaping } from './reap.js'
import { readReportFile, REPORT_SUFFIX } from './report-file.js'
import { snapshotLane } from './snapshot.js'

/** The lane's script runs under a small shell that writes its exit code to a file, so that the code is known even
 * when the runner that started it is gone. */
const WRAPPER = 'bash -e "$1"; code=$?; echo $code > "$2.tmp" && mv "$2.tmp" "$2"; exit $code'

type Deps = {
  dir: string
  /** This runner's file: `svc` in a lane's shell runs it. */
  self: string
  emit: Journal['emit']
  inLane: InLane
  /** The lanes' git facts, read when a lane starts, reports or ends, and followed while it lives. */
  git: LaneGit
  log: (line: string) => void
  /** The worktrees reaps are working on. */
  reaping: Reaping
}

/** The lanes of a host: started as detached process groups, their reports sent home from their outboxes, their end
 * known by waiting (this runner's children) or from their exit file (an earlier runner's). */
export function laneSupervisor({ dir, self, emit, inLane, git, log, reaping }: Deps) {
  /** Report files and lane ends whose event is made but not yet synced: never made twice. */
  const inFlight = new Set<string>()

  const ended = (lane: string, code: number | null, seen: 'waited' | 'exit-file' | 'gone') => {
    const lp = lanePaths(dir, lane)
    if (existsSync(lp.ended) || inFlight.has(lp.ended)) return
    drain(lane)
    inFlight.add(lp.ended)
    inLane(lane, () =>
      emit(lane, { kind: 'exited', code, seen }, () => {
        writeFileAtomicSync(lp.ended, String(code))
        inFlight.delete(lp.ended)
      }),
    )
    const cwd = readText(lp.cwd)
    if (cwd) git.read(lane, cwd)
  }

  /** Reports a lane filed (files in its outbox, written whole by rename), in the order they were filed, each after
   * a snapshot of the lane's worktree that it carries: the report is about those bytes. */
  const drain = (lane: string) => {
    const lp = lanePaths(dir, lane)
    let names: string[] = []
    try {
      names = readdirSync(lp.outbox)
        .filter((n) => n.endsWith(REPORT_SUFFIX))
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
      const id = n.slice(0, -REPORT_SUFFIX.length)
      inLane(lane, async () => {
        let body: HostEventBody
        try {
          body = readReportFile(file, id)
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
        // A report follows a commit or a push, which the worktree's stamp may not show.
        if (cwd) git.read(lane, cwd)
      })
    }
  }

  const start = (m: Extract<FromKernel, { t: 'start' }>) => {
    const lp = lanePaths(dir, m.lane)
    // Started already: a start sent again after a reconnect.
    if (existsSync(lp.dir)) return log(`${m.lane}: start sent again; started already`)
    mkdirSync(lp.outbox, { recursive: true, mode: 0o700 })
    writeFileSync(lp.script, m.script, { mode: 0o700 })
    writeFileSync(lp.cwd, m.dir)
    writeFileSync(lp.started, String(Date.now()))
    const refuse = (e: Error) => {
      emit(m.lane, { kind: 'refused', reason: `cannot start: ${e.message}` })
      writeFileAtomicSync(lp.ended, 'null')
    }
    // A --reuse continues in the worktree an earlier lane left: never in an empty directory made in its place.
    const gone = !m.reuse
      ? undefined
      : reaping.has(m.dir)
        ? 'is being reaped'
        : !existsSync(m.dir)
          ? 'is gone (reaped?)'
          : undefined
    if (gone) return refuse(new Error(`${m.dir} ${gone}; start a new iteration instead`))
    let child
    try {
      if (!m.reuse) mkdirSync(m.dir, { recursive: true })
      child = startDetached(['bash', '-c', WRAPPER, 'lane', lp.script, lp.exit], {
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
        onError: (e) => {
          if (!existsSync(lp.ended)) refuse(e)
        },
      })
    } catch (e) {
      return refuse(e as Error)
    }
    if (!child.pid) return
    // Its start time first: a pid file is never there without the start that tells its process from a later one.
    writeFileAtomicSync(lp.pidStart, processStartTime(child.pid) ?? '')
    writeFileAtomicSync(lp.pid, String(child.pid))
    emit(m.lane, { kind: 'started', pid: child.pid })
    git.read(m.lane, m.dir)
    child.on('exit', (code) => ended(m.lane, code, 'waited'))
  }

  /** The lane's process group, only while it is still the lane's: another process that took its pid is left alone. */
  const stop = (lane: string) => {
    const group = laneGroup(lanePaths(dir, lane))
    if (group)
      try {
        process.kill(-group, 'SIGTERM')
      } catch {}
  }

  const lanes = () => readdirSync(runnerPaths(dir).lanes)

  return {
    start,
    stop,
    /** Reports waiting in the outbox of every lane not yet ended. */
    drainAll() {
      for (const lane of lanes()) if (!existsSync(lanePaths(dir, lane).ended)) drain(lane)
    },
    /** One look at every lane: its reports, its git facts while it lives, and its end when it is gone. Returns how
     * many are alive. */
    sweep() {
      let alive = 0
      const following: { lane: string; dir: string }[] = []
      for (const lane of lanes()) {
        const lp = lanePaths(dir, lane)
        if (existsSync(lp.ended)) continue
        drain(lane)
        if (laneAlive(lp)) {
          alive++
          const cwd = readText(lp.cwd)
          if (cwd) following.push({ lane, dir: cwd })
          continue
        }
        const code = readText(lp.exit)
        if (code !== undefined) ended(lane, Number(code.trim()), 'exit-file')
        else if (readText(lp.pid)) ended(lane, null, 'gone')
      }
      git.look(following)
      return alive
    },
  }
}
