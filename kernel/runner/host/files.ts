import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ownGroupAlive, processCommand, processStartTime, procStat } from '../../io/procs.js'

/** Where the host runner keeps its state: its socket and pid, the journal and the last acknowledged seq, a
 * directory per lane, and its log. */
export const runnerPaths = (dir: string) => ({
  dir,
  sock: join(dir, 'runner.sock'),
  pid: join(dir, 'runner.pid'),
  /** The start time of the runner in `pid` (io/procs processStartTime): a pid alone may name a process that took a
   * dead runner's pid. */
  pidStart: join(dir, 'runner.pid-start'),
  journal: join(dir, 'journal.jsonl'),
  acked: join(dir, 'acked'),
  lanes: join(dir, 'lanes'),
  log: join(dir, 'runner.log'),
})

export type RunnerPaths = ReturnType<typeof runnerPaths>

/** A lane's directory under the runner's. */
export const lanePaths = (dir: string, lane: string) => {
  const d = join(runnerPaths(dir).lanes, lane)
  return {
    dir: d,
    script: join(d, 'script.sh'),
    pid: join(d, 'pid'),
    /** The start time of the process in `pid` (io/procs processStartTime): the two name one process, as pids are
     * reused. */
    pidStart: join(d, 'pid-start'),
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

export type LanePaths = ReturnType<typeof lanePaths>

/** A file's text, or undefined when it cannot be read. */
export const readText = (p: string) => {
  try {
    return readFileSync(p, 'utf8')
  } catch {
    return undefined
  }
}

export const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The runner `runner.pid` names, if it still runs: its pid with the start time kept beside it. A runner of an
 * earlier build kept none: then the process with that pid must have been started as this directory's daemon. */
export function runnerRunning(p: RunnerPaths): number | undefined {
  const pid = Number(readText(p.pid)) || 0
  if (!pid) return undefined
  const now = processStartTime(pid)
  if (now === undefined) return undefined
  const start = readText(p.pidStart)?.trim()
  return (start ? now === start : daemonOf(pid, p.dir)) ? pid : undefined
}

/** Whether process `pid` was started as `<runner> daemon <dir>` for this `dir` (its argument read from the directory
 * it runs in). Where its command cannot be read (no /proc), its pid alone has to do. */
function daemonOf(pid: number, dir: string): boolean {
  const cmd = processCommand(pid)
  if (!cmd) return true
  const at = cmd.args.indexOf('daemon')
  return at > 0 && at + 1 < cmd.args.length && resolve(cmd.cwd, cmd.args[at + 1]) === resolve(dir)
}

/** The process a lane's runner started (its group's leader), as its files name it: the pid, and its start time
 * where one was kept (a lane started by an earlier runner may have none). */
const laneProcess = (lp: LanePaths) => ({ pid: Number(readText(lp.pid)) || 0, start: readText(lp.pidStart)?.trim() })

/** Whether a lane's own process still runs: its pid with its start time (a pid reused by another process is not it). */
export function laneAlive(lp: LanePaths): boolean {
  const { pid, start } = laneProcess(lp)
  if (!pid || !pidAlive(pid)) return false
  // Read from /proc whatever its state: a lane ended but not yet waited for is its runner's to wait for, which says
  // how it ended.
  return !start || (procStat(pid)?.start ?? processStartTime(pid)) === start
}

/** The lane's process group, while it is still the lane's (io/procs ownGroupAlive): what a stop may signal. */
export function laneGroup(lp: LanePaths): number | undefined {
  const { pid, start } = laneProcess(lp)
  return pid && ownGroupAlive(pid, start) ? pid : undefined
}
