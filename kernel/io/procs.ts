import { readFileSync, readdirSync, readlinkSync, existsSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'

/** Output of a command, child_process loaded on first use only: the CLI reads process start times from /proc
 * on every call and never spawns, so it does not pay for loading it. */
function execText(cmd: string, args: string[]): string {
  const { execFileSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
  return execFileSync(cmd, args, { encoding: 'utf8' })
}

const hasProc = existsSync('/proc/self/stat')

/** The fields of /proc/<pid>/stat this module reads, or undefined if the process is gone. The command name in
 * parentheses may hold spaces and parentheses itself, so the fields are counted from its last `)`. */
export function procStat(pid: number | string): { state: string; ppid: number; pgid: number; start: string } | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19] }
}

/** Start time of a process (clock ticks since boot on Linux, a date string elsewhere); undefined if it is gone.
 * Together with the pid it names one process: pids are reused, start times are not. */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  if (hasProc) {
    const st = procStat(pid)
    return st && st.state !== 'Z' ? st.start : undefined // a zombie has exited
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
  if (hasProc) return groupMembers(pgid).length > 0
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/** The processes of this group that are still there (zombies aside), from /proc. */
export function groupMembers(pgid: number): number[] {
  const pids: number[] = []
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue
    const st = procStat(p)
    if (st && st.state !== 'Z' && st.pgid === pgid) pids.push(Number(p))
  }
  return pids
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
      try {
        command = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
      } catch {}
      const st = procStat(p)
      found.push({ pid: Number(p), cwd, command, ...(st ? { ppid: st.ppid, pgid: st.pgid } : {}) })
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
