import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Where the host runner keeps its state: its socket and pid, the journal and the last acknowledged seq, a
 * directory per lane, and its log. */
export const runnerPaths = (dir: string) => ({
  sock: join(dir, 'runner.sock'),
  pid: join(dir, 'runner.pid'),
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
