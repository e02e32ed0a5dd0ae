import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { alive, pidsOfUser, scratchDir } from './home.js'

/** Other machines for the suites of issue 27: each host is a network namespace joined to this one by a veth pair,
 * with Debian's own sshd running in it and a user of its own (made here, with a key made here) to log in as. The
 * addresses come from 198.18.0.0/15 (set aside for tests of networks), one /30 per host, and exist only on the two
 * ends of its pair. Everything made is undone by cleanup(), also when a test fails or the process is ended; what a
 * suite that died left behind is undone by the next rig that starts. A rig that cannot be made throws one line
 * saying why: nothing is skipped. */

const SSHD = '/usr/sbin/sshd'
const PREFIX = 'svct'

export interface SshHost {
  /** Its name for `svc host add`. */
  name: string
  /** The namespace it runs in. */
  ns: string
  /** The veth ends: here, and in the namespace. */
  outer: string
  inner: string
  address: string
  user: string
  uid: number
  home: string
  /** `user@address`, for --ssh. */
  ssh: string
  /** The private key that logs in as the user. */
  identity: string
  /** The host's public key, `type base64`. */
  hostKey: string
  /** The fingerprint ssh shows for it. */
  fingerprint: string
  dir: string
  sshdPid?: number
}

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], input })

const tryRun = (cmd: string, args: string[]) => {
  try {
    run(cmd, args)
    return true
  } catch {
    return false
  }
}

const firstLine = (e: unknown) => {
  const err = e as { stderr?: string; message: string }
  return (err.stderr?.trim() || err.message).split('\n').filter(Boolean).at(-1) ?? 'failed'
}

/** sshd and ip, installed with apt-get when missing (what .ci/run does too); serialised across suites by a lock. */
export function ensureSshServer(): void {
  if (existsSync(SSHD) && existsSync('/usr/sbin/ip') && existsSync('/usr/bin/ssh-keygen')) return
  if (process.getuid?.() !== 0)
    throw new Error(
      `ssh hosts: ${SSHD} is missing and only root may install it (apt-get install openssh-server iproute2)`,
    )
  const script = [
    'set -e',
    `if [ -x ${SSHD} ] && [ -x /usr/sbin/ip ]; then exit 0; fi`,
    // No service may start during the install: the only sshd this suite runs is its own, inside a namespace.
    'made=; if [ ! -e /usr/sbin/policy-rc.d ]; then printf "#!/bin/sh\\nexit 101\\n" > /usr/sbin/policy-rc.d; chmod ' +
      '+x /usr/sbin/policy-rc.d; made=1; fi',
    'trap \'[ -n "$made" ] && rm -f /usr/sbin/policy-rc.d\' EXIT',
    'export DEBIAN_FRONTEND=noninteractive',
    'apt-get update -qq',
    'apt-get install -y -qq --no-install-recommends openssh-server openssh-client iproute2 >/dev/null',
  ].join('\n')
  try {
    execFileSync('flock', ['/var/lock/svc-test-sshd-install.lock', 'bash', '-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 300_000,
    })
  } catch (e) {
    throw new Error(`ssh hosts: installing openssh-server with apt-get failed: ${firstLine(e)}`)
  }
  if (!existsSync(SSHD)) throw new Error(`ssh hosts: apt-get installed openssh-server but ${SSHD} is not there`)
}

/** The pids of the processes inside a namespace. */
const pidsIn = (ns: string): number[] => {
  try {
    return run('ip', ['netns', 'pids', ns]).split('\n').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

const killAll = (pids: number[], signal: NodeJS.Signals = 'SIGKILL') => {
  for (const pid of pids)
    try {
      process.kill(pid, signal)
    } catch {}
}

const uidOf = (user: string): number | undefined => {
  try {
    return Number(run('id', ['-u', user]).trim())
  } catch {
    return undefined
  }
}

/** Undo one host: its processes, namespace, veth and user (with the user's home), each whatever the others did. */
function undoHost(ns: string, outer: string, user: string) {
  killAll(pidsIn(ns))
  const uid = uidOf(user)
  if (uid !== undefined && uid !== 0) {
    killAll(pidsOfUser(uid), 'SIGCONT')
    killAll(pidsOfUser(uid))
  }
  tryRun('ip', ['link', 'del', outer])
  tryRun('ip', ['netns', 'del', ns])
  if (uid !== undefined && uid !== 0) {
    for (let i = 0; i < 20 && pidsOfUser(uid).length; i++) execFileSync('sleep', ['0.05'])
    tryRun('userdel', ['-r', '-f', user])
  }
}

/** Hosts left by a suite whose process is gone: the namespace's name holds the creator's pid (base 36). */
function sweepLeftovers() {
  let names: string[] = []
  try {
    names = readdirSync('/run/netns')
  } catch {}
  for (const ns of names) {
    const m = new RegExp(`^${PREFIX}-([0-9a-z]+)-(\\d)$`).exec(ns)
    if (!m || alive(parseInt(m[1], 36))) continue
    undoHost(ns, `svh${m[1]}${m[2]}`, `${PREFIX}${m[1]}${m[2]}`)
  }
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const m = new RegExp(`^(${PREFIX}([0-9a-z]+)(\\d)):`).exec(line)
    if (m && !alive(parseInt(m[2], 36))) undoHost(`${PREFIX}-${m[2]}-${m[3]}`, `svh${m[2]}${m[3]}`, m[1])
  }
}

/** A free /30 in 198.18.0.0/15: none of this machine's addresses in it. */
function freeSubnet(taken: Set<string>): string {
  const used = run('ip', ['-o', '-4', 'addr', 'show'])
  for (let tries = 0; tries < 200; tries++) {
    const b = 18 + Math.floor(Math.random() * 2)
    const c = Math.floor(Math.random() * 256)
    const d = Math.floor(Math.random() * 64) * 4
    const net = `198.${b}.${c}.${d}`
    const prefix = `198.${b}.${c}.`
    if (taken.has(net)) continue
    const clash = [1, 2].some((k) => used.includes(` ${prefix}${d + k}/`))
    if (!clash) {
      taken.add(net)
      return prefix + d
    }
  }
  throw new Error('ssh hosts: no free /30 in 198.18.0.0/15')
}

const fingerprintOf = (pubFile: string) => run('ssh-keygen', ['-l', '-E', 'sha256', '-f', pubFile]).split(' ')[1]

export class SshHosts {
  readonly hosts: SshHost[] = []
  private readonly dir: string
  private readonly onExit = () => this.cleanupSync()
  private readonly onSignal = (sig: NodeJS.Signals) => {
    this.cleanupSync()
    process.kill(process.pid, sig)
  }

  private constructor() {
    this.dir = scratchDir('ssh-hosts')
  }

  /** `names.length` hosts, each with sshd answering; throws one line when that cannot be done here. */
  static async make(names: string[]): Promise<SshHosts> {
    if (process.platform !== 'linux') throw new Error('ssh hosts: network namespaces need Linux')
    if (process.getuid?.() !== 0)
      throw new Error('ssh hosts: the rig needs root (ip netns, useradd); run the suite as root')
    ensureSshServer()
    sweepLeftovers()
    const rig = new SshHosts()
    process.once('exit', rig.onExit)
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, rig.onSignal)
    try {
      mkdirSync(rig.dir, { recursive: true, mode: 0o755 })
      chmodSync(rig.dir, 0o755)
      mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
      const taken = new Set<string>()
      names.forEach((name, i) => rig.makeHost(name, i, freeSubnet(taken)))
      await Promise.all(rig.hosts.map((h) => rig.startSshd(h)))
    } catch (e) {
      rig.cleanupSync()
      throw new Error(`ssh hosts: ${firstLine(e)}`)
    }
    return rig
  }

  /** Make a host; it is recorded first, so that a failure half-way is undone like a whole one. */
  private makeHost(name: string, i: number, net: string): void {
    const tag = process.pid.toString(36)
    const ns = `${PREFIX}-${tag}-${i}`
    const outer = `svh${tag}${i}`
    const inner = `svn${tag}${i}`
    const user = `${PREFIX}${tag}${i}`
    const base = net.slice(0, net.lastIndexOf('.') + 1)
    const last = Number(net.slice(net.lastIndexOf('.') + 1))
    const here = `${base}${last + 1}`
    const address = `${base}${last + 2}`
    const dir = join(this.dir, name)
    mkdirSync(dir, { recursive: true, mode: 0o755 })
    const host: SshHost = {
      name,
      ns,
      outer,
      inner,
      address,
      user,
      uid: -1,
      home: `/home/${user}`,
      ssh: `${user}@${address}`,
      identity: join(dir, 'id_ed25519'),
      hostKey: '',
      fingerprint: '',
      dir,
    }
    this.hosts.push(host)
    run('ip', ['netns', 'add', ns])
    run('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', inner])
    run('ip', ['link', 'set', inner, 'netns', ns])
    run('ip', ['addr', 'add', `${here}/30`, 'dev', outer])
    run('ip', ['link', 'set', outer, 'up'])
    run('ip', ['-n', ns, 'addr', 'add', `${address}/30`, 'dev', inner])
    run('ip', ['-n', ns, 'link', 'set', inner, 'up'])
    run('ip', ['-n', ns, 'link', 'set', 'lo', 'up'])
    // '*': no password, and not locked (without PAM, sshd refuses a locked account even a key).
    run('useradd', ['--create-home', '--home-dir', host.home, '--shell', '/bin/bash', '--password', '*', user])
    host.uid = uidOf(user)!
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `svc-test-${name}`, '-f', host.identity])
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', '', '-f', join(dir, 'host_ed25519')])
    host.hostKey = readFileSync(join(dir, 'host_ed25519.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ')
    host.fingerprint = fingerprintOf(join(dir, 'host_ed25519.pub'))
    // sshd reads the authorized keys as the user: they live in the user's home, as on any host.
    const ssh = join(host.home, '.ssh')
    mkdirSync(ssh, { mode: 0o700 })
    writeFileSync(join(ssh, 'authorized_keys'), readFileSync(`${host.identity}.pub`), { mode: 0o600 })
    run('chown', ['-R', `${user}:${user}`, ssh])
    writeFileSync(
      join(dir, 'sshd_config'),
      [
        `ListenAddress ${address}`,
        'Port 22',
        `HostKey ${join(dir, 'host_ed25519')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'AuthorizedKeysFile .ssh/authorized_keys',
        `AllowUsers ${user}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin no',
        'UsePAM no',
        'StrictModes yes',
        'PrintMotd no',
        'AcceptEnv LANG LC_*',
        'Subsystem sftp internal-sftp',
        'LogLevel VERBOSE',
        '',
      ].join('\n'),
      { mode: 0o644 },
    )
  }

  /** Start the host's sshd in its namespace; resolves when it listens. */
  async startSshd(h: SshHost): Promise<void> {
    const log = join(h.dir, 'sshd.log')
    const child = spawn('ip', ['netns', 'exec', h.ns, SSHD, '-D', '-E', log, '-f', join(h.dir, 'sshd_config')], {
      stdio: 'ignore',
      detached: true,
    })
    child.unref()
    const pidFile = join(h.dir, 'sshd.pid')
    for (let i = 0; i < 200; i++) {
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim())
        if (pid && alive(pid)) {
          h.sshdPid = pid
          return
        }
      }
      if (child.exitCode !== null) break
      await new Promise((r) => setTimeout(r, 25))
    }
    const said = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').at(-1) : ''
    throw new Error(`sshd of ${h.name} did not start${said ? `: ${said}` : ''}`)
  }

  host(name: string): SshHost {
    const h = this.hosts.find((x) => x.name === name)
    if (!h) throw new Error(`no rig host ${name}`)
    return h
  }

  /** A command run on the host as its user, the way a login would (in its namespace, in its home). */
  as(name: string, script: string): string {
    const h = this.host(name)
    return run('ip', ['netns', 'exec', h.ns, 'runuser', '-u', h.user, '--', 'bash', '-lc', `cd && ${script}`])
  }

  /** The same, not waiting in this process's event loop (what it drives keeps running meanwhile). */
  asAsync(name: string, script: string): Promise<void> {
    const h = this.host(name)
    return new Promise((resolve, reject) => {
      const child = spawn(
        'ip',
        ['netns', 'exec', h.ns, 'runuser', '-u', h.user, '--', 'bash', '-lc', `cd && ${script}`],
        {
          stdio: 'ignore',
        },
      )
      child.on('error', reject)
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited ${code}`))))
    })
  }

  /** Wait until a shell test holds on the host, looked at there every 50 ms by one login (not one login per look,
   * and the test's event loop runs meanwhile); throws `timed out waiting for <what>` after `limitMs`. */
  async until(name: string, condition: string, what: string, limitMs = 15_000): Promise<void> {
    const looks = Math.ceil(limitMs / 50)
    try {
      await this.asAsync(
        name,
        `i=0; until ${condition}; do [ $i -ge ${looks} ] && exit 1; i=$((i+1)); sleep 0.05; done`,
      )
    } catch {
      throw new Error(`timed out waiting for ${what} on host ${name}`)
    }
  }

  /** Every process inside the host's namespace (sshd, its sessions, what they started). */
  pids(name: string): number[] {
    return pidsIn(this.host(name).ns)
  }

  /** Established TCP connections to the host's sshd, counted inside its namespace. */
  connections(name: string): number {
    const h = this.host(name)
    return run('ip', ['netns', 'exec', h.ns, 'ss', '-Htn', 'state', 'established', '( sport = :22 )'])
      .split('\n')
      .filter(Boolean).length
  }

  /** Faults: sshd's listener ended (`sessions`: every sshd process, so each connection drops too). */
  killSshd(name: string, opts: { sessions?: boolean } = {}) {
    const h = this.host(name)
    const pids = opts.sessions
      ? this.pids(name).filter((p) => {
          try {
            return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'sshd'
          } catch {
            return false
          }
        })
      : h.sshdPid
        ? [h.sshdPid]
        : []
    killAll(pids)
    h.sshdPid = undefined
  }

  /** The host's link taken down (or up again): packets stop both ways, nothing is told. */
  link(name: string, up: boolean) {
    run('ip', ['link', 'set', this.host(name).outer, up ? 'up' : 'down'])
  }

  /** Every process of the host stopped (SIGSTOP), or let go on (SIGCONT). */
  freeze(name: string, frozen: boolean) {
    killAll(this.pids(name), frozen ? 'SIGSTOP' : 'SIGCONT')
  }

  private cleaned = false
  cleanupSync() {
    if (this.cleaned) return
    this.cleaned = true
    process.off('exit', this.onExit)
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, this.onSignal)
    for (const h of this.hosts) undoHost(h.ns, h.outer, h.user)
    rmSync(this.dir, { recursive: true, force: true })
  }

  async cleanup() {
    this.cleanupSync()
  }
}
