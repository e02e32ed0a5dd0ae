import { existsSync, readdirSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { procStat } from './procs.js'
import { signalablePid } from './pid-namespace.js'
import { runProcess } from './process.js'

/** A lane's supervisor (its runner, to the kernel) adopts what its lane leaves behind, and nothing its lane starts
 * outlives it. Where namespaces can be made (as root, or inside a user namespace of its own), the supervisor is the
 * first process of a PID namespace of its own: every process the lane starts is in it for good, is handed to the
 * supervisor when its parent exits (`setsid -f`, a double fork), cannot signal it (to its namespace it is init, which
 * ignores SIGKILL from inside), and is killed by Linux when the supervisor ends, however it ends. So no lane process
 * can be released to init and call as the person. The process that made the namespace stays outside it as the
 * supervisor's parent: it passes the kernel's signals on and takes the supervisor with it when killed.
 *
 * Elsewhere the supervisor is only a child subreaper: Linux hands an orphan to its nearest ancestor so marked, else to
 * init; but a lane process that leaves both its group and its session and then kills its supervisor goes to init.
 *
 * Node makes none of these calls (prctl, unshare, mount, capset), so the supervisor is perl, part of every
 * Debian-like base system. */

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
const CAPABILITY_VERSION_3 = 0x20080522
/** Perl that drops every capability this process holds (effective, permitted, inheritable, and so ambient), through
 * capset (its number in $capset): a lane's supervisor that made a user namespace holds them over that namespace until
 * its harness has its /proc, and no longer. */
const DROP_CAPABILITIES =
  `do { my ($h, $d) = (pack("Ll", ${CAPABILITY_VERSION_3}, 0), pack("L6", 0, 0, 0, 0, 0, 0));` +
  ' syscall($capset, $h, $d) == 0 or warn "svc: the lane supervisor keeps its capabilities: $!\n" }'
const CLONE_NEWNS = 0x00020000
const CLONE_NEWUSER = 0x10000000
const MS_REC_PRIVATE = 0x4000 | 0x40000
const MS_NOSUID_NODEV_NOEXEC = 2 | 4 | 8

/** Perl that, where `$flags` asks for a user namespace (a kernel that is not root), first tries one in a child that
 * then exits, and clears `$flags` (no namespace, the subreaper alone) where it cannot be made or its ids mapped: a
 * user namespace whose ids could not be mapped would leave the lane as no one. It defines `ids`, which maps the user
 * and its group to themselves in the user namespace just made. In that namespace the process that made it holds
 * capabilities over that namespace only (enough to mount a /proc of its PID namespace), and loses them at its next
 * exec, as its uid there is not 0. `$unshare` holds unshare's number. */
const USER_NAMESPACE = [
  `my $user = $flags & ${CLONE_NEWUSER};`,
  // Read before unshare: in a user namespace not yet mapped, the user is no one (the overflow id).
  'my ($u, $g) = ($<, (split " ", $()[0]); sub ids {',
  '  for (["setgroups", "deny"], ["uid_map", "$u $u 1"], ["gid_map", "$g $g 1"]) {',
  '    my $f; open($f, ">", "/proc/self/$_->[0]") && print({$f} "$_->[1]\\n") && close($f)',
  '      or $_->[0] eq "setgroups" or return 0 }',
  '  1 }',
  'if ($user) {',
  '  my $t = fork;',
  '  if (defined $t && !$t) {',
  `    syscall($unshare, ${CLONE_NEWUSER}) == 0`,
  '      or die "svc: no PID namespace for this lane: no user namespace: $!\\n";',
  '    ids() or die "svc: no PID namespace for this lane: its user namespace cannot map the user: $!\\n";',
  '    exit 0;',
  '  }',
  '  waitpid($t, 0) if defined $t;',
  '  $flags = 0 if !defined $t || $?;',
  '}',
].join(' ')

/** The lane's supervisor: a small perl process, the root of a lane's process tree, in place of a Node runner of its
 * own (one runner process drives every lane of a home: kernel/runner/local-runner.ts). It is what the kernel knows
 * as the lane's runner: it leads the lane's process group and session, adopts what the lane leaves behind, and stays
 * while any of it runs. Where it can be, it is init of a PID namespace of its own (inside a user namespace of its
 * own where the kernel does not run as root: USER_NAMESPACE), made by a
 * parent that stays outside to pass signals on, and the harness gets a /proc of that namespace (in a mount namespace
 * of its own): a pid the harness is given and the /proc entry of that pid are one process (a sandbox inside the lane
 * writes /proc/<child>/uid_map). Both die with the runner that started them (the parent-death signal), and Linux
 * ends every process of the namespace with its init.
 *
 * It speaks to the runner on descriptor 3, one line each: `init <pid> <0|1>` (its pid as /proc names it, whether it
 * is in a namespace of its own), then `harness <pid>` (in its namespace) or `unstarted <errno> <text>` (the exec
 * failed), `stop <signal>` for each stop signal it gets (the kernel's stop: the runner stops the harness its own
 * way), and `exit <code|-> <signal number|->` when the harness ends. It exits once no process below it is left.
 * Arguments: prctl's, unshare's, mount's and capset's numbers, unshare's flags (0: no namespace), the harness's working
 * directory (the supervisor's own is elsewhere: a process there would hold the lane's worktree), then the harness's
 * argv. */
const SUPERVISOR_SCRIPT = [
  'my ($prctl, $unshare, $mount, $capset, $flags, $cwd) = splice(@ARGV, 0, 6); require POSIX;',
  'open(my $st, ">&=3") or die "svc: the lane has no status pipe: $!\\n"; select((select($st), $| = 1)[0]);',
  'my $quiet = sub { open(STDIN, "<", "/dev/null"); open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null") };',
  `syscall($prctl, ${PR_SET_CHILD_SUBREAPER}, 1, 0, 0, 0) == 0 or warn "svc: cannot adopt the lane's orphans: $!\\n";`,
  `syscall($prctl, ${PR_SET_PDEATHSIG}, 9, 0, 0, 0);`,
  USER_NAMESPACE,
  'my $ns = 0;',
  'if ($flags) {',
  '  if (syscall($unshare, 0 + $flags) == 0) {',
  '    !$user || ids() or die "svc: cannot start $ARGV[0]: its user namespace cannot map the user: $!\\n";',
  '    my $pid = fork; defined $pid or die "svc: cannot start $ARGV[0]: $!\\n";',
  '    if ($pid) {',
  '      close $st; $SIG{$_} = sub { kill $_[0], $pid } for qw(TERM INT HUP); $quiet->();',
  `      ${DROP_CAPABILITIES} if $user;`,
  '      1 while waitpid($pid, 0) == -1 && $!{EINTR};',
  '      exit($? & 127 ? 128 + ($? & 127) : $? >> 8);',
  '    }',
  `    POSIX::setsid(); syscall($prctl, ${PR_SET_PDEATHSIG}, 9, 0, 0, 0); $ns = 1;`,
  '    $ENV{SERVICE_PID_NAMESPACE} = 1 if defined $ENV{SERVICE_CONVERSATION};',
  '  } else { warn "svc: no PID namespace for this lane: $!\\n" }',
  '}',
  'my $self = readlink("/proc/self"); print $st "init $self $ns\\n";',
  '$SIG{$_} = sub { print $st "stop $_[0]\\n" } for qw(TERM INT HUP);',
  'pipe(my $er, my $ew) or die "svc: cannot start $ARGV[0]: $!\\n";',
  'my $h = fork;',
  'if (!defined $h) { print $st "unstarted 0 $!\\n"; exit 1 }',
  'if (!$h) {',
  '  $SIG{$_} = "DEFAULT" for qw(TERM INT HUP); close $er; close $st;',
  // syscall may write to a string it is given, so none is a literal.
  '  my ($none, $root, $proc, $dir) = ("none", "/", "proc", "/proc");',
  `  if ($ns && syscall($unshare, ${CLONE_NEWNS}) == 0) {`,
  `    syscall($mount, $none, $root, 0, ${MS_REC_PRIVATE}, 0) == 0`,
  `      && syscall($mount, $proc, $dir, $proc, ${MS_NOSUID_NODEV_NOEXEC}, 0) == 0`,
  `      or warn "svc: the lane sees the machine's /proc: $!\\n";`,
  '  }',
  '  chdir($cwd) and exec { $ARGV[0] } @ARGV; print $ew (0 + $!), " $!"; POSIX::_exit(127);',
  '}',
  'close $ew; my $err = do { local $/; <$er> }; close $er;',
  'print $st (length $err ? "unstarted $err\\n" : "harness $h\\n"); $quiet->();',
  `${DROP_CAPABILITIES} if $user;`,
  'for (;;) {',
  '  my $p = waitpid(-1, 0);',
  '  if ($p == -1) { next if $!{EINTR}; last }',
  '  next unless $p == $h; my $s = $?;',
  '  print $st ($s & 127 ? "exit - " . ($s & 127) : "exit " . ($s >> 8) . " -"), "\\n";',
  '}',
  'exit 0;',
].join(' ')

/** A harness's argv as a lane's supervisor starts it (SUPERVISOR_SCRIPT); none where it cannot be (not Linux, no
 * perl). */
export function supervisedArgv(argv: readonly string[], cwd: string): string[] | undefined {
  const nr = SYSCALLS[process.arch]
  if (process.platform !== 'linux' || nr === undefined) return undefined
  perl ??= findPerl()
  if (!perl) return undefined
  const numbers = [nr.prctl, nr.unshare, nr.mount, nr.capset, namespaceFlags()].map(String)
  return [perl, '-e', SUPERVISOR_SCRIPT, ...numbers, cwd, ...argv]
}

/** The namespaces a lane's supervisor makes: a PID namespace, inside a user namespace of its own where the kernel
 * does not run as root (only there can a user that is not root make one and mount its /proc). */
const namespaceFlags = () => (process.getuid?.() === 0 ? CLONE_NEWPID : CLONE_NEWPID | CLONE_NEWUSER)

let perl: string | null | undefined

export function findProgram(name: string, path = process.env.PATH ?? ''): string | null {
  if (name.includes('/')) return existsSync(name) ? name : null
  for (const dir of path.split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name)
  return null
}

const findPerl = () => findProgram('perl', `${process.env.PATH ?? ''}${delimiter}/usr/bin${delimiter}/bin`)

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
  const own = 'own'
  const shell = [
    '/bin/sh',
    '-c',
    // Its pid as its /proc names it (read by the shell itself) is its pid in its namespace only if that /proc is
    // the namespace's.
    `read p rest < /proc/self/stat; [ "$p" = "$$" ] && echo ${own}; exit 0`,
  ]
  // A lane's supervisor, as a lane gets one, with its status lines (descriptor 3) on the probe's output.
  const supervised = supervisedArgv(shell, '/')
  if (!supervised) return { ok: false, problem: 'perl not found' }
  const r = await runProcess(['/bin/sh', '-c', 'exec "$@" 3>&1', 'probe', ...supervised], { timeoutMs: 10_000 })
  const said = (r.error ?? r.stderr).trim().split('\n')
  const userNamespace = process.getuid?.() !== 0
  if (/^init \d+ 1$/m.test(r.stdout)) {
    const mounted = new RegExp(`^${own}$`, 'm').test(r.stdout)
    const procProblem = mounted ? undefined : (said.find((l) => /\/proc/.test(l)) ?? '').replace(/^svc: /, '')
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
