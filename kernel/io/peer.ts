import { AsyncLocalStorage } from 'node:async_hooks'
import { existsSync } from 'node:fs'
import { readFile, readdir, readlink } from 'node:fs/promises'
import { procStatAsync } from './procs.js'

/** One process, named so that a reused pid is not mistaken for it. */
export interface ProcessId {
  pid: number
  start: string
  /** Its process group: a runner leads the group of its conversation's processes. */
  pgid: number
  /** Its session: a runner leads the session of its conversation's processes too. */
  sid: number
}

/** The two ends of a request's TCP connection on the loopback, as the kernel's socket sees them. */
export interface ConnectionEnds {
  /** The caller's port (the socket's remote port). */
  remotePort: number
  /** The kernel's port (the socket's local port). */
  localPort: number
  /** The caller's and the kernel's addresses, where known: with them, only that one connection matches. */
  remoteAddress?: string
  localAddress?: string
}

/** The connection a request came in on, for the services it reaches (none outside a request). */
const current = new AsyncLocalStorage<{ socket: object; ends: () => ConnectionEnds }>()
/** What was found of each connection's caller: a kept-alive connection is looked up once, on first need, and the
 * requests that need it at the same time share that one look. */
const found = new WeakMap<object, Promise<ProcessId[] | null>>()

const hasProc = existsSync('/proc/net/tcp')
const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0')

/** An IPv4 address as /proc/net/tcp writes it (the bytes in the machine's order, little-endian here), and as tcp6
 * writes the same address mapped into IPv6; undefined for what is no dotted IPv4 address. */
function procAddresses(address: string | undefined): string[] | undefined {
  const m = address && /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(address)
  if (!m) return undefined
  const v4 = m
    .slice(1)
    .reverse()
    .map((b) => Number(b).toString(16).toUpperCase().padStart(2, '0'))
    .join('')
  return [v4, `0000000000000000FFFF0000${v4}`]
}

/** Whether an address:port field of /proc/net/tcp is this end: the port always, the address where known. */
const isEnd = (field: string, port: number, addresses: string[] | undefined) => {
  const [addr, p] = field.split(':')
  return p === hex(port) && (!addresses || addresses.includes(addr))
}

/** The inode of the caller's socket of a connection to the kernel: /proc/net/tcp and tcp6 list each socket with its
 * local and remote address; the caller's end is the one whose local end is the connection's remote end. */
async function socketInode(ends: ConnectionEnds): Promise<string | undefined> {
  const callers = procAddresses(ends.remoteAddress)
  const kernels = procAddresses(ends.localAddress)
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = await readFile(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      // sl, local_address, rem_address, st, queues, tr, retrnsmt, uid, timeout, inode
      if (f.length > 9 && isEnd(f[1], ends.remotePort, callers) && isEnd(f[2], ends.localPort, kernels) && f[9] !== '0')
        return f[9]
    }
  }
  return undefined
}

/** How many processes' descriptors are read at once: first a few, then more each round up to this many. The caller
 * of a request has most likely just started, so it is among the first few looked at, and no more are read than it
 * takes to reach it. */
const BATCH = 32
const FIRST_BATCH = 4

/** Whether a process holds a link to this socket among its open descriptors. */
async function holds(pid: number, link: string): Promise<boolean> {
  let fds: string[]
  try {
    fds = await readdir(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')))
  return links.includes(link)
}

/** Pids, the most recently given first, where `last` is the last pid Linux gave and `max` its pid_max: it gives pids
 * in rising order and starts again from the lowest past pid_max (32768 by default: on a busy machine, every few
 * minutes), so the newest processes are those just below the last pid given, then those at the top of the range.
 * Without the last pid (Infinity), the highest first. */
export function newestFirst(pids: number[], last: number, max: number): number[] {
  // How long ago each pid was given, counted in pids given since.
  const age = (pid: number) => (!Number.isFinite(last) ? -pid : pid <= last ? last - pid : last + max - pid)
  return [...pids].sort((a, b) => age(a) - age(b))
}

/** The last pid Linux gave in this PID namespace and its pid_max; Infinity and 0 where they cannot be read. */
async function lastPidGiven(): Promise<[number, number]> {
  try {
    const [l, m] = await Promise.all(
      ['/proc/sys/kernel/ns_last_pid', '/proc/sys/kernel/pid_max'].map((f) => readFile(f, 'utf8')),
    )
    if (/^\d+\s*$/.test(l) && /^\d+\s*$/.test(m)) return [Number(l), Number(m)]
  } catch {}
  return [Infinity, 0]
}

/** The process holding a socket, with its start time read before its descriptors and found the same after: the
 * process that held it, not one that took its pid since. The newest of them where several do (one inherited it). */
async function socketOwner(inode: string): Promise<ProcessId | undefined> {
  const link = `socket:[${inode}]`
  const pids = newestFirst(
    (await readdir('/proc')).filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid).map(Number),
    ...(await lastPidGiven()),
  )
  for (let i = 0, size = FIRST_BATCH; i < pids.length; i += size, size = Math.min(BATCH, size * 2)) {
    const owners = await Promise.all(
      pids.slice(i, i + size).map(async (pid) => {
        const before = await procStatAsync(pid)
        if (!before || !(await holds(pid, link))) return undefined
        const after = await procStatAsync(pid)
        return after?.start === before.start ? { pid, start: after.start, pgid: after.pgid, sid: after.sid } : undefined
      }),
    )
    const owner = owners.find((o) => o !== undefined)
    if (owner) return owner
  }
  return undefined
}

/** Whether a start time (clock ticks since boot) is later than another's, where both are such numbers. */
const later = (a: string, b: string) => /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) > BigInt(b)

/** A process and its ancestors, nearest first, up to (not including) pid 1. A parent started after its child is
 * no parent of it: the parent ended and its pid went to a new process while the child was read; the line ends
 * there. */
async function lineage(owner: ProcessId): Promise<ProcessId[]> {
  const out: ProcessId[] = [owner]
  let st = await procStatAsync(owner.pid)
  if (st?.start !== owner.start) return out
  while (st.ppid > 1 && out.length < 64) {
    const pid = st.ppid
    const child = out[out.length - 1]
    st = await procStatAsync(pid)
    if (!st || later(st.start, child.start)) break
    out.push({ pid, start: st.start, pgid: st.pgid, sid: st.sid })
  }
  return out
}

/** The calling process of a connection and its ancestors, read from /proc off the kernel's thread; none where
 * /proc cannot tell (not Linux); null when it can but no process holds the caller's end: the caller closed it after
 * sending its request, so who sent it cannot be known, and it must not count as the person. */
export async function callerLineage(ends: ConnectionEnds): Promise<ProcessId[] | null> {
  if (!hasProc) return []
  try {
    const inode = await socketInode(ends)
    const owner = inode && (await socketOwner(inode))
    return owner ? await lineage(owner) : null
  } catch {
    return []
  }
}

/** Who called, as the processes behind a request's connection: what the kernel can verify of a caller, whatever
 * its environment claims. */
export const peers = {
  /** Runs `fn` as the handling of a request on `socket`. */
  within<T>(socket: object, ends: () => ConnectionEnds, fn: () => T): T {
    return current.run({ socket, ends }, fn)
  },
  /** The calling process of the current request and its ancestors, nearest first (none outside a request; null:
   * its caller closed the connection before it could be found). */
  lineage(): Promise<ProcessId[] | null> {
    const c = current.getStore()
    if (!c) return Promise.resolve([])
    let l = found.get(c.socket)
    if (l === undefined) found.set(c.socket, (l = callerLineage(c.ends())))
    return l
  },
}
export type Peers = typeof peers
