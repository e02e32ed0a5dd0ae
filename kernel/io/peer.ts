import { AsyncLocalStorage } from 'node:async_hooks'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { procStat } from './procs.js'

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
}

/** The connection a request came in on, for the services it reaches (none outside a request). */
const current = new AsyncLocalStorage<{ socket: object; ends: () => ConnectionEnds }>()
/** What was found of each connection's caller: a kept-alive connection is looked up once, on first need. */
const found = new WeakMap<object, ProcessId[] | null>()

const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0')

/** The inode of the caller's socket of a connection to the kernel: /proc/net/tcp and tcp6 list each socket with its
 * local and remote address; the caller's end is the one whose local port is the connection's remote port. */
function socketInode(ends: ConnectionEnds): string | undefined {
  const local = `:${hex(ends.remotePort)}`
  const remote = `:${hex(ends.localPort)}`
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      // sl, local_address, rem_address, st, queues, tr, retrnsmt, uid, timeout, inode
      if (f.length > 9 && f[1].endsWith(local) && f[2].endsWith(remote) && f[9] !== '0') return f[9]
    }
  }
  return undefined
}

/** The process holding a socket: the newest first, since the caller of a request has most likely just started. */
function socketOwner(inode: string): number | undefined {
  const link = `socket:[${inode}]`
  const pids = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .map(Number)
    .sort((a, b) => b - a)
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid
      } catch {}
    }
  }
  return undefined
}

/** A process and its ancestors, nearest first, up to (not including) pid 1. */
function lineage(pid: number): ProcessId[] {
  const out: ProcessId[] = []
  for (let p = pid; p > 1 && out.length < 64;) {
    const st = procStat(p)
    if (!st) break
    out.push({ pid: p, start: st.start, pgid: st.pgid, sid: st.sid })
    p = st.ppid
  }
  return out
}

/** The calling process of a connection and its ancestors, read from /proc; none where /proc cannot tell (not
 * Linux); null when it can but no process holds the caller's end: the caller closed it after sending its request,
 * so who sent it cannot be known, and it must not count as the person. */
export function callerLineage(ends: ConnectionEnds): ProcessId[] | null {
  if (!existsSync('/proc/net/tcp')) return []
  try {
    const inode = socketInode(ends)
    const pid = inode && socketOwner(inode)
    const found = pid ? lineage(pid) : []
    return found.length ? found : null
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
  lineage(): ProcessId[] | null {
    const c = current.getStore()
    if (!c) return []
    let l = found.get(c.socket)
    if (l === undefined) found.set(c.socket, (l = callerLineage(c.ends())))
    return l
  },
}
export type Peers = typeof peers
