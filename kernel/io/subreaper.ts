import { existsSync, readdirSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { procStat } from './procs.js'

/** A runner adopts what its lane leaves behind. Linux hands an orphan (a process whose parent exited, as after
 * `setsid -f` or a double fork) to its nearest ancestor marked as a child subreaper, else to init; a runner so marked
 * keeps every process its lane starts in its own tree, where the kernel finds it, so no lane process can leave its
 * conversation and call as the person. Node cannot make the call (prctl), so the runner is started through perl,
 * part of every Debian-like base system, which marks itself and then becomes the runner (the mark outlives exec). */

const PR_SET_CHILD_SUBREAPER = 36
/** prctl's system call number on each architecture Node names. */
const PRCTL: Partial<Record<string, number>> = {
  x64: 157,
  arm64: 167,
  riscv64: 167,
  loong64: 167,
  ia32: 172,
  arm: 172,
  s390x: 172,
  ppc64: 171,
}

const SCRIPT = [
  'my $nr = shift;',
  `syscall($nr, ${PR_SET_CHILD_SUBREAPER}, 1, 0, 0, 0) == 0 or warn "svc: cannot adopt the lane's orphans: $!\\n";`,
  'exec { $ARGV[0] } @ARGV or die "svc: cannot start $ARGV[0]: $!\\n";',
].join(' ')

let perl: string | null | undefined

function findPerl(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).concat('/usr/bin', '/bin'))
    if (dir && existsSync(join(dir, 'perl'))) return join(dir, 'perl')
  return null
}

/** `argv` started so that its process becomes a child subreaper, or as it is where that cannot be done (not Linux,
 * no perl): then an orphan of the lane goes to init, and `adoptsOrphans()` says so. */
export function adoptingArgv(argv: readonly string[]): string[] {
  const nr = PRCTL[process.arch]
  if (process.platform !== 'linux' || nr === undefined) return [...argv]
  perl ??= findPerl()
  return perl ? [perl, '-e', SCRIPT, String(nr), ...argv] : [...argv]
}

/** Whether runners adopt their lanes' orphans here. */
export const adoptsOrphans = (): boolean => adoptingArgv(['x']).length > 1

/** The live processes of the machine (zombies aside) by their parent, from /proc. */
function childrenByParent(): Map<number, number[]> {
  const out = new Map<number, number[]>()
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue
    const st = procStat(p)
    if (!st || st.state === 'Z') continue
    const siblings = out.get(st.ppid)
    if (siblings) siblings.push(Number(p))
    else out.set(st.ppid, [Number(p)])
  }
  return out
}

/** The live children of a process (zombies aside), from /proc: what a runner has adopted once its harness is gone. */
export function liveChildren(pid: number): number[] {
  return childrenByParent().get(pid) ?? []
}

/** The live descendants of a process (zombies aside), from /proc: children, their children, and so on. */
export function liveDescendants(pid: number): number[] {
  const byParent = childrenByParent()
  const out: number[] = []
  for (let i = 0, next = [pid]; i < next.length; i++)
    for (const c of byParent.get(next[i]) ?? []) {
      out.push(c)
      next.push(c)
    }
  return out
}

/** Ends every process below `pid` (SIGKILL), round after round until none is left: a process that forks while it is
 * killed hands its child to the runner (a subreaper), where the next round finds it. False if some are still there
 * after `limitMs` (a process that cannot be killed, or not this user's). */
export async function endDescendants(pid: number, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs
  for (;;) {
    const left = liveDescendants(pid)
    if (!left.length) return true
    if (Date.now() > deadline) return false
    for (const p of left)
      try {
        process.kill(p, 'SIGKILL')
      } catch {}
    await new Promise((r) => setTimeout(r, 10))
  }
}
