import { readFileSync, readdirSync, readlinkSync, existsSync, realpathSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { runProcessSync } from './process.js'

const hasProc = existsSync('/proc/self/stat')

/** The fields of /proc/<pid>/stat this module reads, or undefined if the process is gone. The command name in
 * parentheses may hold spaces and parentheses itself, so the fields are counted from its last `)`. */
export function procStat(pid: number | string): ProcStat | undefined {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

/** procStat read through the thread pool, for a reader that must not hold up the kernel's other answers. */
export async function procStatAsync(pid: number | string): Promise<ProcStat | undefined> {
  try {
    return statFields(await readFile(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return undefined
  }
}

interface ProcStat {
  state: string
  ppid: number
  pgid: number
  sid: number
  /** Clock ticks since boot. */
  start: string
}

function statFields(stat: string): ProcStat {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return {
    state: fields[0],
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    start: fields[19],
  }
}

/** Whether process `p` was started by `ancestor`'s own work: its descendant (child, grandchild, ...) in `ancestor`'s
 * process group. What was started detached, in a group of its own (a runner, and all a lane runs), is not. Read
 * from /proc: its parent and group as read with it, then the parent's ancestors as they are now. When a process of
 * that chain has ended since `p` was read, `p` counts as `ancestor`'s if it has ended too: a filter git runs ends
 * before git does, and a process that has ended holds nothing. */
const ended = (pid: number) => {
  const st = procStat(pid)
  return !st || st.state === 'Z'
}

export function startedWithin(p: { pid: number; ppid?: number; pgid?: number }, ancestor: number): boolean {
  if (!hasProc) return false
  const group = procStat(ancestor)?.pgid
  if (group === undefined || p.pgid !== group) return false
  for (let pid = p.ppid ?? 0, hops = 0; pid > 1 && hops < 64; hops++) {
    if (pid === ancestor) return true
    const st = procStat(pid)
    if (!st) return ended(p.pid)
    if (st.pgid !== group) return false
    pid = st.ppid
  }
  return false
}

/** Start time of a process (clock ticks since boot on Linux, a date string elsewhere); undefined if it is gone.
 * Together with the pid it names one process: pids are reused, start times are not. */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  if (hasProc) {
    const st = procStat(pid)
    return st && st.state !== 'Z' ? st.start : undefined // a zombie has exited
  }
  return runProcessSync(['ps', '-o', 'lstart=', '-p', String(pid)])?.stdout.trim() || undefined
}

/** The arguments of a process, from /proc (throws if it is gone). */
const commandArgs = (pid: number | string) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)

/** The arguments a process was started with and the directory it runs in, read from /proc; undefined if it is gone,
 * not ours to read, or this system has no /proc. */
export function processCommand(pid: number): { args: string[]; cwd: string } | undefined {
  if (!hasProc || !Number.isInteger(pid) || pid <= 0) return undefined
  try {
    return { args: commandArgs(pid), cwd: readlinkSync(`/proc/${pid}/cwd`) }
  } catch {
    return undefined
  }
}

/** Whether a process (not a zombie) has this pid now. */
export const pidInUse = (pid: number): boolean => processStartTime(pid) !== undefined

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

/** Is any process of this group still there (zombies aside)? A group no process has (signal 0 finds none) is
 * answered without reading /proc; only one that has some is scanned, for members that are more than zombies. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (e) {
    // EPERM: there are members, of another user; read /proc to tell whether any is more than a zombie.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return hasProc ? groupMembers(pgid).length > 0 : true
}

/** Whether the process group a process led is still its own, with a member left: the process runs (its pid and start
 * time), or it has ended and processes of its group remain (a group's id is given to no new process while the group
 * has a member). A pid reused by another process that leads a group of its own is not it: signalling that group would
 * hit a stranger. Without a start time to tell them apart, a live group of that id counts. */
export function ownGroupAlive(pid: number, start: string | undefined): boolean {
  if (!start) return groupAlive(pid)
  return isAlive(pid, start) || (!pidInUse(pid) && groupAlive(pid))
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

interface ProcessInfo {
  pid: number
  cwd: string
  command: string
  /** Its working directory is the directory or lies inside it. */
  cwdInside: boolean
  /** Files inside the directory it holds open. */
  files: string[]
  /** Parent and process group, where known (Linux). */
  ppid?: number
  pgid?: number
}

/** Where an open file descriptor points, or undefined for what is no file there now (a pipe, a socket, a file
 * deleted since it was opened: the reap cannot cut off writes to those). */
function openFile(link: string): string | undefined {
  if (!link.startsWith('/')) return undefined
  if (link.endsWith(' (deleted)') && !existsSync(link)) return undefined
  return link
}

/** The files a process holds open that `wanted` takes, from /proc/<pid>/fd; none when they cannot be read (another
 * user's process). */
function openFiles(pid: string, wanted: (path: string) => boolean): string[] {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  const files = new Set<string>()
  for (const fd of fds) {
    let link: string
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue
    }
    const file = wanted(link) ? openFile(link) : undefined
    if (file !== undefined) files.add(file)
  }
  return [...files]
}

/** How many processes a scan of /proc reads before it lets the kernel's other answers run. */
const SCAN_TURN = 16

/** Processes whose working directory is `dir` or lies inside it, or which hold a file inside it open:
 * /proc/<pid>/cwd and /proc/<pid>/fd on Linux, lsof elsewhere. The /proc reads are plain reads (a read through the
 * thread pool costs several times more processor time), a few processes at a time: a scan of a busy machine's
 * thousands of links never holds up the kernel's other answers for long. */
export async function processesInside(given: string): Promise<ProcessInfo[]> {
  // Compare real paths: a process's cwd and its open files are always reported resolved.
  let dir = given.replace(/\/+$/, '') || '/'
  try {
    dir = realpathSync(dir)
  } catch {}
  const inside = (path: string) => path === dir || path.startsWith(dir === '/' ? dir : dir + '/')
  if (hasProc) {
    const one = (p: string): ProcessInfo | undefined => {
      let cwd: string
      try {
        cwd = readlinkSync(`/proc/${p}/cwd`)
      } catch {
        return undefined
      }
      const files = openFiles(p, inside)
      if (!inside(cwd) && !files.length) return undefined
      let command = ''
      try {
        command = commandArgs(p).join(' ')
      } catch {}
      // Gone since its directory was read (a filter git ran, say): it uses nothing, and without its parent and
      // group it could not be told from a process of the lane's.
      const st = procStat(p)
      if (!st) return undefined
      return { pid: Number(p), cwd, command, cwdInside: inside(cwd), files, ppid: st.ppid, pgid: st.pgid }
    }
    const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p))
    const found: ProcessInfo[] = []
    for (let i = 0; i < pids.length; i++) {
      if (i && i % SCAN_TURN === 0) await new Promise((r) => setImmediate(r))
      const info = one(pids[i])
      if (info) found.push(info)
    }
    return found
  }
  const found: ProcessInfo[] = []
  // lsof exits 1 when some process could not be read; what it printed still holds.
  const out = runProcessSync(['lsof', '-w', '-Fpfn'])?.stdout ?? ''
  // lsof prints p<pid>, then f<descriptor> and n<name> for each of its files; `cwd` is the working directory.
  const byPid = new Map<number, ProcessInfo>()
  let pid = 0
  let fd = ''
  for (const line of out.split('\n')) {
    if (line.startsWith('p')) pid = Number(line.slice(1))
    else if (line.startsWith('f')) fd = line.slice(1)
    else if (line.startsWith('n') && inside(line.slice(1)) && (fd === 'cwd' || /^\d+/.test(fd))) {
      const info = byPid.get(pid) ?? { pid, cwd: '', command: '', cwdInside: false, files: [] }
      byPid.set(pid, info)
      if (fd === 'cwd') Object.assign(info, { cwd: line.slice(1), cwdInside: true })
      else info.files.push(line.slice(1))
    }
  }
  for (const info of byPid.values()) {
    info.command = runProcessSync(['ps', '-o', 'command=', '-p', String(info.pid)])?.stdout.trim() ?? ''
    found.push(info)
  }
  return found
}
