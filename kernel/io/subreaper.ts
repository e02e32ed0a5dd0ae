import { existsSync, readdirSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { procStat } from './procs.js'
import { inOwnPidNamespace, signalablePid } from './pid-namespace.js'
import { runProcess } from './process.js'

/** A runner adopts what its lane leaves behind, and nothing its lane starts outlives it. Where the kernel runs as
 * root, the runner is the first process of a PID namespace of its own: every process the lane starts is in it for good
 * (a process cannot leave its PID namespace), is handed to the runner when its parent exits (`setsid -f`, a double
 * fork), cannot signal the runner (to its namespace the runner is init, which ignores SIGKILL from inside), and is
 * killed by Linux when the runner ends, however it ends. So no lane process can be released to init and call as the
 * person. The process that made the namespace stays outside it as the runner's parent: it passes the kernel's signals
 * on and takes the runner with it when killed.
 *
 * Elsewhere the runner is only a child subreaper: Linux hands an orphan to its nearest ancestor so marked, else to
 * init; but a lane process that leaves both its group and its session and then kills its runner goes to init.
 *
 * Node makes neither call (prctl, unshare), so the runner is started through perl, part of every Debian-like base
 * system. */

const PR_SET_PDEATHSIG = 1
const PR_SET_CHILD_SUBREAPER = 36
const CLONE_NEWPID = 0x20000000
/** prctl's and unshare's system call numbers on each architecture Node names. */
const SYSCALLS: Partial<Record<string, { prctl: number; unshare: number; mount: number; capset: number }>> = {
  x64: { prctl: 157, unshare: 272, mount: 165, capset: 126 },
  arm64: { prctl: 167, unshare: 97, mount: 40, capset: 91 },
  riscv64: { prctl: 167, unshare: 97, mount: 40, capset: 91 },
  loong64: { prctl: 167, unshare: 97, mount: 40, capset: 91 },
  ia32: { prctl: 172, unshare: 310, mount: 21, capset: 185 },
  arm: { prctl: 172, unshare: 337, mount: 21, capset: 185 },
  s390x: { prctl: 172, unshare: 303, mount: 21, capset: 185 },
  ppc64: { prctl: 171, unshare: 282, mount: 21, capset: 184 },
}
const CLONE_NEWNS = 0x00020000
const CLONE_NEWUSER = 0x10000000
const PR_CAP_AMBIENT = 47
const PR_CAP_AMBIENT_RAISE = 2
const CAP_SYS_ADMIN = 21
const CAPABILITY_VERSION_3 = 0x20080522

/** Perl that leaves this process with only the capabilities of `mask` (of the first 32), effective, permitted and
 * inheritable, through capset (its number in $capset); true if done. Lowering them lowers the ambient set too. */
const keepCaps = (mask: string) =>
  `do { my ($h, $d) = (pack("Ll", ${CAPABILITY_VERSION_3}, 0), pack("L6", (${mask}) x 3, 0, 0, 0));` +
  ' syscall($capset, $h, $d) == 0 }'
const MS_REC_PRIVATE = 0x4000 | 0x40000
const MS_NOSUID_NODEV_NOEXEC = 2 | 4 | 8

// A harness in its runner's namespace gets a /proc of that namespace (in a mount namespace of its own), so that a
// pid it is given and the /proc entry of that pid are one process: tools that write /proc/<child>/uid_map (a
// sandbox) or kill what pgrep found work as they do outside. Where it cannot be mounted, the machine's stays. A runner
// that is not root holds, of all capabilities, only the one this mount needs (in its user namespace, see SCRIPT); the
// harness is started with none.
const PROC_SCRIPT = [
  // syscall may write to a string it is given, so none is a literal.
  'my ($unshare, $mount, $capset) = splice(@ARGV, 0, 3);',
  'my ($none, $root, $proc, $dir) = ("none", "/", "proc", "/proc");',
  `if (syscall($unshare, ${CLONE_NEWNS}) == 0) {`,
  `  syscall($mount, $none, $root, 0, ${MS_REC_PRIVATE}, 0) == 0`,
  `    && syscall($mount, $proc, $dir, $proc, ${MS_NOSUID_NODEV_NOEXEC}, 0) == 0`,
  `    or warn "svc: the lane sees the machine's /proc: $!\\n";`,
  '}',
  `!$> || ${keepCaps('0')} or die "svc: cannot start $ARGV[0] without the runner's capability: $!\\n";`,
  'exec { $ARGV[0] } @ARGV or die "svc: cannot start $ARGV[0]: $!\\n";',
].join(' ')

/** A harness's argv, as the runner starts it: where the runner is in a PID namespace of its own, with a /proc of
 * that namespace. */
export function ownProcArgv(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const nr = SYSCALLS[process.arch]
  perl ??= findPerl()
  // A program that is not there is left to fail to start as itself (the runner says so as a spawn error).
  if (!inOwnPidNamespace() || nr === undefined || !perl || !findProgram(argv[0], env.PATH)) return [...argv]
  return [perl, '-e', PROC_SCRIPT, String(nr.unshare), String(nr.mount), String(nr.capset), ...argv]
}

// Arguments: prctl's, unshare's and capset's numbers, unshare's flags (0: none), then the program. A namespace that
// cannot be made leaves the subreaper mark alone, and says why.
//
// A user that is not root makes the PID namespace inside a user namespace of its own, where it is itself (its uid and
// gid mapped to themselves) and holds capabilities over that namespace only. That is tried first in a child that then
// exits: a user namespace whose ids could not be mapped would leave the runner as no one. The runner keeps one
// capability of that namespace, CAP_SYS_ADMIN, as an ambient one (across its exec), so that it can mount its
// harness's /proc (PROC_SCRIPT), which drops it before the harness starts.
const SCRIPT = [
  'my ($prctl, $unshare, $capset, $flags) = splice(@ARGV, 0, 4); my $user = $flags & ' + CLONE_NEWUSER + ';',
  `syscall($prctl, ${PR_SET_CHILD_SUBREAPER}, 1, 0, 0, 0) == 0 or warn "svc: cannot adopt the lane's orphans: $!\n";`,
  // Read before unshare: in a user namespace not yet mapped, the user is no one (the overflow id).
  'my ($u, $g) = ($<, (split " ", $()[0]); sub ids {',
  '  for (["setgroups", "deny"], ["uid_map", "$u $u 1"], ["gid_map", "$g $g 1"]) {',
  '    my $f; open($f, ">", "/proc/self/$_->[0]") && print({$f} "$_->[1]\n") && close($f)',
  '      or $_->[0] eq "setgroups" or return 0 }',
  '  1 }',
  'if ($user) {',
  '  my $t = fork;',
  '  if (defined $t && !$t) {',
  `    syscall($unshare, ${CLONE_NEWUSER}) == 0 or die "svc: no PID namespace for this lane: no user namespace: $!\n";`,
  '    ids() or die "svc: no PID namespace for this lane: its user namespace cannot map the user: $!\n";',
  '    exit 0;',
  '  }',
  '  waitpid($t, 0) if defined $t;',
  '  $flags = 0 if !defined $t || $?;',
  '}',
  'if ($flags && syscall($unshare, 0 + $flags) == 0) {',
  '  !$user || ids() or die "svc: cannot start $ARGV[0]: its user namespace cannot map the user: $!\n";',
  '  my $pid = fork;',
  '  defined $pid or die "svc: cannot start $ARGV[0]: $!\n";',
  '  if (!$pid) {',
  '    require POSIX; POSIX::setsid();',
  `    syscall($prctl, ${PR_SET_PDEATHSIG}, 9, 0, 0, 0);`,
  `    !$user || ${keepCaps(String(1 << CAP_SYS_ADMIN))}`,
  `      && syscall($prctl, ${PR_CAP_AMBIENT}, ${PR_CAP_AMBIENT_RAISE}, ${CAP_SYS_ADMIN}, 0, 0) == 0`,
  '      or warn "svc: the lane will see the machine\'s /proc: $!\n";',
  '    exec { $ARGV[0] } @ARGV or die "svc: cannot start $ARGV[0]: $!\n";',
  '  }',
  '  $SIG{$_} = sub { kill $_[0], $pid } for qw(TERM INT HUP);',
  '  waitpid($pid, 0);',
  '  exit($? & 127 ? 128 + ($? & 127) : $? >> 8);',
  '}',
  `warn "svc: no PID namespace for this lane: $!\n" if $flags;`,
  'exec { $ARGV[0] } @ARGV or die "svc: cannot start $ARGV[0]: $!\n";',
].join(' ')

let perl: string | null | undefined

function findProgram(name: string, path = process.env.PATH ?? ''): string | null {
  if (name.includes('/')) return existsSync(name) ? name : null
  for (const dir of path.split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name)
  return null
}

const findPerl = () => findProgram('perl', `${process.env.PATH ?? ''}${delimiter}/usr/bin${delimiter}/bin`)

/** `argv` started so that its process is the first of a PID namespace of its own (inside a user namespace of its
 * own where the kernel does not run as root), else a child subreaper, or as it is where neither can be done (not
 * Linux, no perl): then an orphan of the lane goes to init. `namespace: false` asks for the subreaper mark only. */
export function adoptingArgv(argv: readonly string[], opts: { namespace?: boolean } = {}): string[] {
  const nr = SYSCALLS[process.arch]
  if (process.platform !== 'linux' || nr === undefined) return [...argv]
  perl ??= findPerl()
  if (!perl) return [...argv]
  const flags = opts.namespace === false ? 0 : process.getuid?.() === 0 ? CLONE_NEWPID : CLONE_NEWPID | CLONE_NEWUSER
  return [perl, '-e', SCRIPT, String(nr.prctl), String(nr.unshare), String(nr.capset), String(flags), ...argv]
}

/** Whether runners get a PID namespace of their own here (inside a user namespace where the kernel is not root),
 * tried with a shell in the runner's place (it is pid 1 in its namespace) started as a harness is; if not, why not;
 * and whether that harness gets a /proc of its namespace, if not, why not. */
export async function pidNamespaceProbe(): Promise<{
  ok: boolean
  problem?: string
  userNamespace?: boolean
  procProblem?: string
}> {
  if (process.platform !== 'linux') return { ok: false, problem: 'not Linux' }
  const nr = SYSCALLS[process.arch]
  perl ??= findPerl()
  const own = 'own'
  const shell = [
    '/bin/sh',
    '-c',
    `echo $$; [ "$(readlink /proc/1/ns/pid)" = "$(readlink /proc/self/ns/pid)" ] && echo ${own}`,
  ]
  const argv = adoptingArgv([
    ...(nr && perl ? [perl, '-e', PROC_SCRIPT, String(nr.unshare), String(nr.mount), String(nr.capset)] : []),
    ...shell,
  ])
  if (argv[0] === '/bin/sh') return { ok: false, problem: 'perl not found' }
  const r = await runProcess(argv, { timeoutMs: 10_000 })
  const said = (r.error ?? r.stderr).trim().split('\n')
  const [pid, proc] = r.stdout.trim().split('\n')
  const userNamespace = process.getuid?.() !== 0
  if (pid === '1') {
    const procProblem = proc === own ? undefined : (said.find((l) => /\/proc/.test(l)) ?? '').replace(/^svc: /, '')
    return { ok: true, userNamespace, ...(procProblem !== undefined && { procProblem: procProblem || 'not mounted' }) }
  }
  const problem = said.pop()?.replace(/^svc: (no PID namespace for this lane: )?/, '')
  return { ok: false, userNamespace, problem: problem || `the probe ended with code ${r.code}` }
}

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
        // From inside a runner's namespace, a process is signalled by its pid there, not by the one /proc gives.
        const pid = signalablePid(p)
        if (pid !== undefined) process.kill(pid, 'SIGKILL')
      } catch {}
    await new Promise((r) => setTimeout(r, 10))
  }
}
