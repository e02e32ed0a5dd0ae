/** Hosts (issue 27): other machines lanes may run on, reached with the system ssh. hosts.yaml in the service home
 * maps a host's name to how it is reached; these are its rules: what a name, a target and an entry may be, the ssh
 * command line every connection uses, and what a probe's answer means. */

import * as v from 'valibot'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'
import { issueText, type Checked } from './shape.js'

/** A host's name: short, lower-case, usable in a path and a ref. */
export const HOST_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/
const USER = /^[a-z_][a-z0-9_.-]{0,31}$/
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/

/** Where a host's lanes go when hosts.yaml names no lanes root: under the remote user's home. */
export const DEFAULT_REMOTE_LANES_ROOT = '~/svc-lanes'

/** The first contact with a host waits this long for the connection; a later one as long. */
export const CONNECT_TIMEOUT_S = 5
/** A connection master stays up this long after its last use, so that the next command pays no handshake. */
export const CONTROL_PERSIST_S = 60

export interface SshTarget {
  user: string
  address: string
  port?: number
}

/** `user@addr`, `user@addr:port` or `user@[v6]:port`: nothing ssh could read as an option or a second argument. */
export function parseSshTarget(text: string): Decision<{ target: SshTarget }> {
  const bad = (why: string) =>
    refuse('usage', `--ssh ${JSON.stringify(text)}: ${why}`, 'give it as user@address, or user@address:port')
  const at = text.indexOf('@')
  if (at < 0) return bad('no user; expected user@address')
  const user = text.slice(0, at)
  let rest = text.slice(at + 1)
  if (!USER.test(user)) return bad(`the user ${JSON.stringify(user)} is not a user name`)
  let portText: string | undefined
  let address: string
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']')
    if (close < 0) return bad('an unclosed [')
    address = rest.slice(1, close)
    rest = rest.slice(close + 1)
    if (rest && !rest.startsWith(':')) return bad('expected :port after ]')
    portText = rest ? rest.slice(1) : undefined
    if (!IPV6.test(address) || !address.includes(':')) return bad(`${address} is not an IPv6 address`)
  } else {
    const colon = rest.lastIndexOf(':')
    address = colon < 0 ? rest : rest.slice(0, colon)
    portText = colon < 0 ? undefined : rest.slice(colon + 1)
    if (!HOSTNAME.test(address)) return bad(`${JSON.stringify(address)} is not a host name or an IPv4 address`)
  }
  if (portText === undefined) return allow({ target: { user, address } })
  const port = Number(portText)
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) return bad(`the port ${portText} is not 1-65535`)
  return allow({ target: { user, address, port } })
}

/** The `ssh` value as written back: the form parseSshTarget reads. */
export const sshTargetText = (t: SshTarget) =>
  `${t.user}@${t.address.includes(':') ? `[${t.address}]` : t.address}${t.port ? `:${t.port}` : ''}`

/** A remote lanes root: an absolute path or one under the remote home (`~/...`), with no `..`, on one line. */
export function remoteRootProblem(root: string): string | undefined {
  if (!(root.startsWith('/') || root === '~' || root.startsWith('~/')))
    return `the lanes root ${JSON.stringify(root)} is neither absolute nor under ~/`
  if (root === '/' || root === '~') return `the lanes root ${root} would be the whole ${root === '/' ? 'disk' : 'home'}`
  if (root.split('/').includes('..')) return `the lanes root ${JSON.stringify(root)} holds ..`
  if (/[\0-\x1f\x7f'"\\$`]/.test(root))
    return `the lanes root ${JSON.stringify(root)} holds a quote, $ or a control character`
  return undefined
}

const HostEntrySchema = v.strictObject({
  ssh: v.pipe(
    v.string(),
    v.check((s) => parseSshTarget(s).ok, 'user@address or user@address:port'),
  ),
  lanes_root: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => remoteRootProblem(s) === undefined, 'an absolute path or ~/path with no .. and no quotes'),
    ),
  ),
  identity: v.optional(
    v.pipe(
      v.string(),
      v.check((s) => s.startsWith('/') && !/[\0-\x1f]/.test(s), 'an absolute path of a private key file'),
    ),
  ),
})

const HostsFileSchema = v.record(
  v.pipe(
    v.string(),
    v.check((s) => HOST_NAME.test(s), 'a host name of lower-case letters, digits and "-" (at most 32)'),
  ),
  HostEntrySchema,
)

export type HostEntry = v.InferOutput<typeof HostEntrySchema>
export type Hosts = Record<string, HostEntry>

/** hosts.yaml's document checked: the hosts, or the first thing wrong with it on one line (file named by the
 * caller). */
export function checkHostsFile(doc: unknown): Checked<Hosts> {
  if (doc === null || doc === undefined) return { ok: true, value: {} }
  if (typeof doc !== 'object' || Array.isArray(doc))
    return { ok: false, problem: '(top level): expected a mapping of host names to entries' }
  const r = v.safeParse(HostsFileSchema, doc)
  return r.success ? { ok: true, value: r.output } : { ok: false, problem: issueText(r.issues) }
}

/** A host named by a user: an own key of hosts.yaml. */
export const hostEntry = (hosts: Hosts, name: string): HostEntry | undefined =>
  Object.hasOwn(hosts, name) ? hosts[name] : undefined

export const hostFound = (hosts: Hosts, name: string): Decision<{ entry: HostEntry }> => {
  const entry = hostEntry(hosts, name)
  if (entry) return allow({ entry })
  const known = Object.keys(hosts)
  return refuse(
    'not_found',
    `no host ${JSON.stringify(name)} in hosts.yaml`,
    known.length ? `hosts: ${known.join(', ')}` : 'add one: svc host add <name> --ssh user@address',
  )
}

export interface HostAddInput {
  name: string
  ssh: string
  lanesRoot?: string
  identity?: string
  hostKey?: string
}

/** A public host key as `type base64`, the form of a known-hosts line after its names. */
const HOST_KEY =
  /^(ssh-ed25519|ecdsa-sha2-nistp(256|384|521)|ssh-rsa|sk-ssh-ed25519@openssh\.com) [A-Za-z0-9+/]{16,}={0,2}$/

/** `svc host add`: the entry to write, or why not (a bad name, target, root or key path; a name already taken). */
export function planHostAdd(hosts: Hosts, input: HostAddInput): Decision<{ entry: HostEntry; target: SshTarget }> {
  if (!HOST_NAME.test(input.name))
    return refuse(
      'usage',
      `host name ${JSON.stringify(input.name)}: use lower-case letters, digits and "-", at most 32, starting with a ` +
        `letter or digit`,
    )
  if (hostEntry(hosts, input.name))
    return refuse(
      'conflict',
      `host ${input.name} is already in hosts.yaml (${hosts[input.name].ssh})`,
      `svc host remove ${input.name} first, or pick another name`,
    )
  const target = parseSshTarget(input.ssh)
  if (!target.ok) return target
  if (input.lanesRoot !== undefined) {
    const problem = remoteRootProblem(input.lanesRoot)
    if (problem) return refuse('usage', `--lanes-root: ${problem}`, 'give an absolute path, or one under ~/')
  }
  if (input.identity !== undefined && !input.identity.startsWith('/'))
    return refuse('usage', `--identity ${JSON.stringify(input.identity)}: give the key file's absolute path`)
  if (input.hostKey !== undefined && !HOST_KEY.test(input.hostKey.trim()))
    return refuse(
      'usage',
      `--host-key: expected "<type> <base64>" as in the host's /etc/ssh/ssh_host_ed25519_key.pub`,
      'or leave it out: the first connection records the key and shows its fingerprint',
    )
  const entry: HostEntry = {
    ssh: sshTargetText(target.target),
    ...(input.lanesRoot !== undefined ? { lanes_root: input.lanesRoot } : {}),
    ...(input.identity !== undefined ? { identity: input.identity } : {}),
  }
  return allow({ entry, target: target.target })
}

/** A lane placed on a host whose worktree is still there: not reaped, live or not. */
export interface PlacedLane {
  name: string
  live: boolean
}

/** `svc host remove`: refused while any lane placed on the host still has its worktree there (live, or stopped and
 * not reaped): a live lane's events come home through the host, and only a reap holds a worktree's bytes at home
 * before it removes it; a host forgotten first would leave them out of reach. */
export function hostRemovable(name: string, placed: PlacedLane[]): Decision {
  if (!placed.length) return ALLOWED
  const n = placed.length
  const named = placed.map((l) => `${l.name} (${l.live ? 'live' : 'stopped, not reaped'})`)
  return refuse(
    'conflict',
    `refused: host ${name} still holds the worktree${n === 1 ? '' : 's'} of ${n} lane${n === 1 ? '' : 's'}: ` +
      `${named.join(', ')}`,
    `reap ${n === 1 ? 'it' : 'them'} first: svc lane reap <lane> (a live lane is stopped first; --park keeps ` +
      `uncommitted work), then remove the host; if it is gone for good: svc host remove ${name} --forget-lanes`,
  )
}

/** A lane whose worktree `svc host remove --forget-lanes` gave up: live or not when it was, and how many snapshots of
 * its worktree home holds (from its reports and reaps), under `refs`. */
export interface GivenUpLane extends PlacedLane {
  held: number
  refs: string
}

/** What `svc host remove --forget-lanes` gave up, on one line: every lane, and what home still holds of each. */
export function givenUpLine(host: string, lanes: GivenUpLane[]): string {
  const n = lanes.length
  const s = (k: number) => (k === 1 ? '' : 's')
  const each = lanes.map(
    (l) =>
      `${l.name} (${l.live ? 'live' : 'stopped'}; ` +
      `${l.held ? `${l.held} snapshot${s(l.held)} kept at ${l.refs}` : 'nothing held at home'})`,
  )
  return `gave up the worktree${s(n)} of ${n} lane${s(n)} on host ${host}, marked reaped: ${each.join(', ')}`
}

/** The service's own files every ssh connection uses: its known hosts (never the user's) and where its masters'
 * sockets live. */
export interface SshPlaces {
  knownHosts: string
  /** A short directory (a socket path is limited to about 100 bytes); `%C` names the socket inside it. */
  controlDir: string
}

/** The name a host's key is recorded under in the service's known hosts: its host name here, not its address, so
 * that the entry follows the host and a remove finds it. */
export const hostKeyAlias = (name: string) => `svc-host-${name}`

/** The ssh options of every connection to a host: no questions (BatchMode), a bounded connect, one master connection
 * per host shared by every command, keep-alives that notice a dead link, and the host's key checked against the
 * service's known hosts only: `learn` accepts a host's first key (svc host add), otherwise a key must already be
 * there and match. */
export function sshOptions(
  name: string,
  entry: HostEntry,
  places: SshPlaces,
  opts: { learn?: boolean; aliveIntervalS?: number } = {},
): string[] {
  const target = parseSshTarget(entry.ssh)
  if (!target.ok) throw new Error(`hosts.yaml entry ${name} was not checked: ${target.message}`)
  const t = target.target
  const o = (kv: string) => ['-o', kv]
  return [
    ...o('BatchMode=yes'),
    ...o(`ConnectTimeout=${CONNECT_TIMEOUT_S}`),
    ...o(`ServerAliveInterval=${opts.aliveIntervalS ?? 5}`),
    ...o('ServerAliveCountMax=2'),
    ...o('ControlMaster=auto'),
    ...o(`ControlPath=${places.controlDir}/%C`),
    ...o(`ControlPersist=${CONTROL_PERSIST_S}`),
    ...o(`StrictHostKeyChecking=${opts.learn ? 'accept-new' : 'yes'}`),
    ...o(`UserKnownHostsFile=${places.knownHosts}`),
    ...o('GlobalKnownHostsFile=/dev/null'),
    ...o(`HostKeyAlias=${hostKeyAlias(name)}`),
    ...o('HashKnownHosts=no'),
    ...o('UpdateHostKeys=no'),
    ...o('LogLevel=ERROR'),
    ...(entry.identity ? [...o(`IdentityFile=${entry.identity}`), ...o('IdentitiesOnly=yes')] : []),
    ...(t.port ? ['-p', String(t.port)] : []),
    '-l',
    t.user,
    '--',
    t.address,
  ]
}

/** git reaching a directory on the host over the same connection: the ssh command git runs (every option of
 * `sshOptions` but the address, each quoted for the shell git runs it with) and the directory's URL (`~/` is the
 * remote home, as git reads it in an ssh URL; a relative directory is under that home too). */
export function gitOverSsh(name: string, entry: HostEntry, places: SshPlaces, dir: string) {
  const args = sshOptions(name, entry, places)
  const cut = args.lastIndexOf('--')
  const address = args[cut + 1]
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
  const path = dir.startsWith('/') ? dir : `/${dir.startsWith('~/') ? '' : '~/'}${dir}`
  return {
    sshCommand: ['ssh', ...args.slice(0, cut).map(quote)].join(' '),
    url: `ssh://${address.includes(':') ? `[${address}]` : address}${path}`,
  }
}

/** The version of a host runner: the first 16 digits of its file's hash, which name its file on a host. */
export const runnerVersion = (hash: string) => hash.slice(0, 16)

/** The version of the runner file at `path` (`.../runner-<version>.mjs`), or undefined for another file. */
export const runnerVersionOf = (path: string) => /(?:^|\/)runner-([0-9a-f]{16})\.mjs$/.exec(path)?.[1]

/** What the kernel does with the runner that greets it: keep one of this kernel's version; replace another (end it,
 * so that the next attach starts this version, which takes over its journal and its lanes), once per runner: one
 * that could not be ended is kept, with a warning. */
export function runnerOnHello(
  want: string,
  hello: { runner?: string; pid: number },
  triedPid: number | undefined,
): { act: 'keep'; warning?: string } | { act: 'replace'; pid: number; message: string } {
  if (hello.runner === want) return { act: 'keep' }
  const running = `its runner (pid ${hello.pid}) runs version ${hello.runner ?? 'unknown'}, not this kernel's ${want}`
  if (triedPid === hello.pid) return { act: 'keep', warning: `${running}, and could not be replaced; using it` }
  return { act: 'replace', pid: hello.pid, message: `${running}; replacing it` }
}

/** Ends the runner `pid` on a host if it is a runner of the service (a pid reused by another process is left
 * alone), waiting up to 5 s for it to go (a zombie has gone: whoever adopted it may be slow to reap it). Its lanes
 * run on (each its own process group) and its journal stays for the next runner. */
export const replaceRunnerScript = (pid: number) =>
  [
    `case "$(ps -o args= -p ${pid} 2>/dev/null)" in *"/${REMOTE_DIR}/runner-"*".mjs daemon "*) kill ${pid} ;; esac`,
    `i=0; while [ $i -lt 100 ]; do case "$(ps -o stat= -p ${pid} 2>/dev/null)" in ""|Z*) break ;; esac; ` +
      `sleep 0.05; i=$((i+1)); done; true`,
  ].join('; ')

/** The oldest Node a host runner runs on. */
export const MIN_NODE_MAJOR = 20

/** What a probe runs on the host: one line per fact, `key=value`, so any POSIX shell answers it the same way. Besides
 * the system, git and node: whether the runner of this version (`hash`) is installed there, and which runner runs
 * (its pid and the command it runs, from the runner's pid file). It always ends with 0. */
export const probeScript = (hash: string) => {
  const v = runnerVersion(hash)
  return [
    'echo "os=$(uname -sm)"',
    'echo "git=$(git --version 2>/dev/null)"',
    'echo "node=$(node --version 2>/dev/null)"',
    'echo "home=$HOME"',
    `if [ -f "$HOME/${remoteRunnerPath(hash)}" ]; then echo "runner=${v} installed"; else echo "runner=${v} ` +
      `missing"; fi`,
    `p=$(cat "$HOME/${REMOTE_DIR}/state/runner.pid" 2>/dev/null)`,
    'case "$p" in ""|*[!0-9]*) ;; *) if kill -0 "$p" 2>/dev/null; then echo "running=$p $(ps -o args= -p "$p" ' +
      '2>/dev/null)"; fi ;; esac',
  ].join('; ')
}

export interface ProbeAnswer {
  /** ssh's exit code (255: ssh itself failed), null when it was killed past its deadline. */
  code: number | null
  stdout: string
  stderr: string
  timedOut?: boolean
}

export interface HostFacts {
  os: string
  git?: string
  node?: string
  home: string
  runner?: RunnerFacts
}

/** The host runner on a host, as a probe found it. */
export interface RunnerFacts {
  /** The version this kernel ships (`runnerVersion`). */
  version: string
  /** Whether that version's file is on the host. */
  installed: boolean
  /** The runner running there now, and the version of the file it runs. */
  running?: { pid: number; version: string }
}

/** A runner's version read from the command it runs (`node <home>/.svc-host/runner-<version>.mjs daemon <dir>`). */
const RUNNING = /^(\d+) .*[ /]\.svc-host\/runner-([0-9a-f]{16})\.mjs daemon /

function readRunner(runner: string | undefined, running: string | undefined): RunnerFacts | undefined {
  const m = /^([0-9a-f]{16}) (installed|missing)$/.exec(runner ?? '')
  if (!m) return undefined
  const r = RUNNING.exec(running ?? '')
  return {
    version: m[1],
    installed: m[2] === 'installed',
    ...(r ? { running: { pid: Number(r[1]), version: r[2] } } : {}),
  }
}

/** What a probe's answer means: the host's facts, or one line saying what failed and how to fix it. */
export function readProbe(
  name: string,
  entry: HostEntry,
  knownHosts: string,
  a: ProbeAnswer,
): Decision<{ facts: HostFacts }> {
  const said =
    a.stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !/^Warning: Permanently added/.test(l)) ?? ''
  const at = `host ${name} (${entry.ssh})`
  if (a.timedOut) return refuse('unavailable', `${at} did not answer in time`, 'check that it is up and reachable')
  if (a.code !== 0) {
    if (
      /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed|host key for .* has changed/i.test(a.stderr)
    )
      return refuse(
        'unavailable',
        `${at}: its host key is not the one recorded in ${knownHosts}`,
        `if the host was reinstalled: svc host remove ${name}, then svc host add ${name} --ssh ${entry.ssh} again`,
      )
    if (/No .* host key is known|Host key .* not in known hosts/i.test(a.stderr))
      return refuse(
        'unavailable',
        `${at}: its host key is not recorded in ${knownHosts}`,
        `svc host remove ${name}, then add it again`,
      )
    if (/Permission denied/i.test(said))
      return refuse(
        'unavailable',
        `${at} refused the key: ${said}`,
        entry.identity
          ? `add the public key of ${entry.identity} to ~/.ssh/authorized_keys of ${entry.ssh}`
          : `give a key the host accepts: svc host remove ${name}; svc host add ${name} --ssh ${entry.ssh} ` +
              `--identity <key file>`,
      )
    if (/timed out|No route to host|Connection refused|Network is unreachable|Could not resolve/i.test(said))
      return refuse(
        'unavailable',
        `${at} is unreachable: ${said}`,
        'check that it is up, its sshd runs and the address is right',
      )
    if (a.code === 255) return refuse('unavailable', `${at}: ssh failed: ${said || 'exit 255'}`)
    return refuse('unavailable', `${at}: the probe exited ${a.code}${said ? `: ${said}` : ''}`)
  }
  const fact = (k: string) =>
    a.stdout
      .split('\n')
      .find((l) => l.startsWith(`${k}=`))
      ?.slice(k.length + 1)
      .trim()
  const os = fact('os')
  const home = fact('home')
  if (!os || !home)
    return refuse(
      'unavailable',
      `${at} answered the probe with something else: ${JSON.stringify(a.stdout.slice(0, 80))}`,
    )
  const git = fact('git') || undefined
  const node = fact('node') || undefined
  const runner = readRunner(fact('runner'), fact('running'))
  return allow({
    facts: { os, home, ...(git ? { git } : {}), ...(node ? { node } : {}), ...(runner ? { runner } : {}) },
  })
}

/** A host as `svc host list|show` and doctor show it: its entry, its recorded key, and (when probed) what it
 * answered or why it did not. */
export interface HostView {
  name: string
  ssh: string
  lanesRoot: string
  identity?: string
  /** The fingerprint of the host key the service recorded for it. */
  hostKey?: string
  facts?: HostFacts
  problem?: { message: string; hint?: string }
}

/** `svc host remove`: the host as it was, and the lanes whose worktrees there it gave up (--forget-lanes). */
export interface HostRemoved extends HostView {
  gaveUp?: GivenUpLane[]
}

/** One line of `svc host list` / doctor for a host that answered. */
export const hostFactsText = (f: HostFacts) => `${f.os}; ${f.git ?? 'no git'}; ${f.node ? `node ${f.node}` : 'no node'}`

/** The major version of a `node --version` answer (`v20.19.0`), or undefined. */
export const nodeMajor = (node: string | undefined) => {
  const m = /^v(\d+)\./.exec(node ?? '')
  return m ? Number(m[1]) : undefined
}

/** Why a host's node cannot run the host runner, or undefined when it can. */
export function nodeProblem(name: string, node: string | undefined): string | undefined {
  const major = nodeMajor(node)
  if (major === undefined) return `host ${name} has no node on its PATH`
  if (major < MIN_NODE_MAJOR) return `host ${name} has node ${node}; the host runner needs ${MIN_NODE_MAJOR} or newer`
  return undefined
}

/** The host runner on a host, in words: this kernel's version installed or not, and which one runs. */
export function runnerText(r: RunnerFacts): string {
  const running = r.running
  if (running && running.version !== r.version)
    return `runner ${running.version} running (pid ${running.pid}), not this kernel's ${r.version}`
  if (running) return `runner ${r.version} running (pid ${running.pid})`
  if (r.installed) return `runner ${r.version} installed, not running (it starts with the next lane there)`
  return `runner ${r.version} not installed yet (sent with the first lane there)`
}

/** Where the service keeps its files on a host: under the remote home, beside nothing of the user's. */
export const REMOTE_DIR = '.svc-host'

/** The host runner's file on a host: named by its content's hash, so a host holds exactly the version shipped. */
export const remoteRunnerPath = (hash: string) => `${REMOTE_DIR}/runner-${hash.slice(0, 16)}.mjs`

/** Installs the host runner (its text on stdin) unless that version is there already; answers `have` or
 * `installed`, then `node=<version>` (empty when the host has no node). */
export const installRunnerScript = (hash: string) => {
  const f = `"$HOME/${remoteRunnerPath(hash)}"`
  return [
    'umask 077',
    `if [ -f ${f} ]; then echo have; cat >/dev/null; else mkdir -p "$HOME/${REMOTE_DIR}" && cat > ${f}.tmp.$$ && mv ` +
      `${f}.tmp.$$ ${f} && echo installed; fi`,
    'echo "node=$(node --version 2>/dev/null)"',
  ].join('; ')
}

/** What the kernel runs on a host to reach its runner (starting it when none runs). */
export const attachCommand = (hash: string) =>
  `exec node "$HOME/${remoteRunnerPath(hash)}" attach "$HOME/${REMOTE_DIR}/state"`

/** What an install's answer means. */
export function readInstall(name: string, a: ProbeAnswer): Decision {
  if (a.code !== 0 || !/^(have|installed)$/m.test(a.stdout))
    return refuse(
      'unavailable',
      `host ${name}: the host runner could not be installed: ${a.stderr.trim().split('\n').at(-1) || `exit ${a.code}`}`,
    )
  const problem = nodeProblem(name, /^node=(.*)$/m.exec(a.stdout)?.[1].trim())
  if (problem) return refuse('unavailable', problem, `install Node ${MIN_NODE_MAJOR} or newer on ${name}`)
  return ALLOWED
}
