import { readFileSync, readdirSync, readlinkSync, existsSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'

/** Output of a command, child_process loaded on first use only: the CLI reads process start times from /proc
 * on every call and never spawns, so it does not pay for loading it. */
function execText(cmd: string, args: string[]): string {
  const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
  return execFileSync(cmd, args, { encoding: 'utf8' })
}

const hasProc = existsSync('/proc/self/stat')

/** Start time of a process (clock ticks since boot on Linux, a date string elsewhere); undefined if it is gone.
 * Together with the pid it names one process: pids are reused, start times are not. */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  if (hasProc) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] === 'Z') return undefined // a zombie has exited
      return fields[19]
    } catch {
      return undefined
    }
  }
  try {
    return execText('ps', ['-o', 'lstart=', '-p', String(pid)]).trim() || undefined
  } catch {
    return undefined
  }
}

export const isAlive = (pid: number | undefined, start: string | undefined): boolean =>
  pid !== undefined && start !== undefined && processStartTime(pid) === start

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal)
    return true
  } catch {
    return false
  }
}

/** Is any process of this group still there (zombies aside)? */
export function groupAlive(pgid: number): boolean {
  if (!hasProc) {
    try {
      process.kill(-pgid, 0)
      return true
    } catch {
      return false
    }
  }
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) return true
    } catch {}
  }
  return false
}

export interface ProcessInfo {
  pid: number
  cwd: string
  command: string
  /** Parent and process group, where known (Linux). */
  ppid?: number
  pgid?: number
}

/** Processes whose working directory is `dir` or lies inside it: /proc/<pid>/cwd on Linux, lsof elsewhere. */
export function processesInside(given: string): ProcessInfo[] {
  // Compare real paths: a process's cwd is always reported resolved.
  let dir = given.replace(/\/+$/, '') || '/'
  try {
    dir = realpathSync(dir)
  } catch {}
  const inside = (cwd: string) => cwd === dir || cwd.startsWith(dir === '/' ? dir : dir + '/')
  const found: ProcessInfo[] = []
  if (hasProc) {
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue
      let cwd: string
      try {
        cwd = readlinkSync(`/proc/${p}/cwd`)
      } catch {
        continue
      }
      if (!inside(cwd)) continue
      let command = ''
      let ids: { ppid?: number; pgid?: number } = {}
      try {
        command = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        ids = { ppid: Number(fields[1]), pgid: Number(fields[2]) }
      } catch {}
      found.push({ pid: Number(p), cwd, command, ...ids })
    }
    return found
  }
  let out = ''
  try {
    out = execText('lsof', ['-a', '-d', 'cwd', '-Fpn'])
  } catch (e) {
    out = String((e as { stdout?: string }).stdout ?? '')
  }
  let pid = 0
  for (const line of out.split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1))
    else if (line.startsWith('n') && inside(line.slice(1))) {
      let command = ''
      try {
        command = execText('ps', ['-o', 'command=', '-p', String(pid)]).trim()
      } catch {}
      found.push({ pid, cwd: line.slice(1), command })
    }
  }
  return found
}
