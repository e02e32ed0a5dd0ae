import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs'

/** A runner started as the first process of a PID namespace of its own (io/subreaper) knows itself as pid 1 and its
 * children by pids of that namespace, while /proc, which it shares with the machine, names every process by its pid
 * outside. These translate between the two; where the process is not in such a namespace they change nothing. */

/** This process's pid as /proc names it (its pid outside its namespace). */
function procSelf(): number {
  try {
    return Number(readlinkSync('/proc/self'))
  } catch {
    return process.pid
  }
}

/** A process's pids in each PID namespace from /proc's down to its own (the NSpid line), none where /proc has no
 * such line or the process is gone. */
function nsPids(pid: number | 'self'): number[] {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return line ? line[1].trim().split(/\s+/).map(Number) : []
  } catch {
    return []
  }
}

let self: number | undefined

/** This process's pid as /proc (and the kernel, which reads it) names it. */
export const procPid = (): number => (self ??= procSelf())

/** Whether this process runs in a PID namespace of its own, below /proc's (as a runner does where namespaces are
 * available): its pids and /proc's differ. */
export const inOwnPidNamespace = (): boolean => procPid() !== process.pid

/** The pid by which this process signals the process /proc names `pid`; none if that one is outside this process's
 * namespace (or gone). */
export function signalablePid(pid: number): number | undefined {
  if (!inOwnPidNamespace()) return pid
  return nsPids(pid)[nsPids('self').length - 1]
}

/** The pid /proc gives the process known as `pid` in the PID namespace that process `member` (a /proc pid) lives in:
 * `pid` itself where that namespace is /proc's; undefined if no such process is left. */
export function procPidIn(pid: number, member: number): number | undefined {
  const chain = nsPids(member)
  // A member that is gone says nothing of its namespace: `pid` may name another process here.
  if (!chain.length && !existsSync(`/proc/${member}`)) return undefined
  const level = chain.length - 1
  if (level <= 0) return pid
  let ns: string
  try {
    ns = readlinkSync(`/proc/${member}/ns/pid`)
  } catch {
    return undefined // gone, or a zombie, whose namespaces /proc no longer shows
  }
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d)))
    try {
      if (nsPids(Number(p))[level] === pid && readlinkSync(`/proc/${p}/ns/pid`) === ns) return Number(p)
    } catch {}
  return undefined
}
