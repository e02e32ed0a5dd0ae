import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, until } from '../helpers/home.js'
import { SshHosts } from '../helpers/ssh-hosts.js'
import { controlDir } from '../../kernel/io/hosts/ssh.js'
import { hostRunnerFile } from '../../kernel/io/hosts/runner-file.js'
import { remoteRunnerPath, runnerVersion } from '../../kernel/domain/hosts.js'
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { HostLink } from '../../kernel/services/host-link.js'
import { runSsh } from '../../kernel/io/hosts/ssh.js'
import { openLineStream } from '../../kernel/io/hosts/stream.js'
import type { HostEvent } from '../../kernel/domain/host-stream.js'

/** `svc host add|list|show|remove` and `svc doctor` against two real hosts: Debian's sshd in network namespaces, each
 * logged in to as a user of its own with a key this suite made. */

let rig: SshHosts
let h: TestHome
const hostsYaml = () => join(h.service, 'hosts.yaml')
const knownHosts = () => join(h.service, 'hosts', 'known_hosts')

test.before(async () => {
  rig = await SshHosts.make(['a', 'b'])
})
test.after(async () => {
  await rig?.cleanup()
})
test.before.each(() => {
  h = new TestHome('hosts')
})
test.after.each(async () => {
  await h.stop()
})

/** The version of the runner this build ships. */
const version = runnerVersion(hostRunnerFile().hash)

const add = (name: string, extra: string[] = []) =>
  h.svc(['host', 'add', name, '--ssh', rig.host(name).ssh, '--identity', rig.host(name).identity, ...extra])

test('host add learns the key of a host it reaches and shows its fingerprint; list, show and doctor use it', async () => {
  const a = rig.host('a')
  const r = await add('a')
  assert.is(r.stderr, '')
  assert.is(r.code, 0)
  const lines = r.stdout.split('\n')
  assert.is(lines[0], `added host a (${a.ssh}), host key ${a.fingerprint}`)
  assert.match(lines[1], /^answers: Linux \S+; git version [\d.]+; node v\d+\.\d+\.\d+; home \/home\/svct/)
  assert.is(lines[2], `runner ${version} not installed yet (sent with the first lane there)`)
  assert.is(readFileSync(knownHosts(), 'utf8'), `svc-host-a ${a.hostKey}\n`)
  assert.match(
    readFileSync(hostsYaml(), 'utf8'),
    new RegExp(`^a:\\n  ssh: ${a.ssh}\\n  identity: ${a.identity}\\n`, 'm'),
  )

  const b = rig.host('b')
  const withKey = await add('b', ['--host-key', b.hostKey])
  assert.is(withKey.code, 0, withKey.stderr)
  assert.is(withKey.stdout.split('\n')[0], `added host b (${b.ssh}), host key ${b.fingerprint}`)

  const list = await h.ok(['host', 'list'])
  assert.equal(
    list
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/ {2,}/)),
    [
      ['HOST', 'SSH', 'LANES ROOT', 'HOST KEY'],
      ['a', a.ssh, '~/svc-lanes', a.fingerprint],
      ['b', b.ssh, '~/svc-lanes', b.fingerprint],
    ],
  )

  const show = await h.svc(['host', 'show', 'a', '--json'])
  assert.is(show.code, 0, show.stderr)
  const view = JSON.parse(show.stdout)
  assert.is(view.facts.home, a.home)
  assert.is(view.hostKey, a.fingerprint)

  // One connection per host: every command so far shared the master each host's first contact opened.
  assert.is(rig.connections('a'), 1)
  assert.ok(readdirSync(controlDir(h.service)).length >= 1)

  const doctor = await h.svc(['doctor'])
  const hostLines = doctor.stdout.split('\n').filter((l) => /^\S+\s+host /.test(l))
  assert.is(hostLines.length, 2, doctor.stdout)
  assert.match(hostLines[0], new RegExp(`^ok {7}host a: ${a.ssh}: Linux \\S+; git version [\\d.]+; node v`))
  assert.ok(
    hostLines[0].endsWith(`; runner ${version} not installed yet (sent with the first lane there)`),
    hostLines[0],
  )
  assert.match(hostLines[1], new RegExp(`^ok {7}host b: ${b.ssh}: Linux`))
  assert.is(rig.connections('a'), 1)
})

test('a host whose key is not the one given is refused, nothing written; a wrong login key is named', async () => {
  const a = rig.host('a')
  const r = await add('a', ['--host-key', rig.host('b').hostKey])
  assert.is(r.code, 1)
  assert.is(r.stdout, '')
  assert.is(
    r.stderr,
    `svc: host a (${a.ssh}): its host key is not the one recorded in ${knownHosts()}\n` +
      `hint: if the host was reinstalled: svc host remove a, then svc host add a --ssh ${a.ssh} again\n`,
  )
  assert.not.ok(existsSync(hostsYaml()))
  assert.is(readFileSync(knownHosts(), 'utf8'), '')

  const wrong = await h.svc(['host', 'add', 'a', '--ssh', a.ssh, '--identity', rig.host('b').identity])
  assert.is(wrong.code, 1)
  assert.is(
    wrong.stderr,
    `svc: host a (${a.ssh}) refused the key: ${a.ssh}: Permission denied (publickey).\n` +
      `hint: add the public key of ${rig.host('b').identity} to ~/.ssh/authorized_keys of ${a.ssh}\n`,
  )
  assert.not.ok(existsSync(hostsYaml()))
})

test('a host that stops answering: show exits 1 and doctor names it; remove closes its connection and forgets its key', async () => {
  const a = rig.host('a')
  assert.is((await add('a')).code, 0)
  rig.killSshd('a', { sessions: true })
  try {
    const show = await h.svc(['host', 'show', 'a'])
    assert.is(show.code, 1)
    assert.match(
      show.stdout,
      `unreachable: host a (${a.ssh}) is unreachable: ssh: connect to host ${a.address} port 22: Connection refused\n`,
    )
    const doctor = await h.svc(['doctor'])
    assert.is(doctor.code, 1)
    assert.match(doctor.stdout, `PROBLEM  host a: host a (${a.ssh}) is unreachable`)
  } finally {
    await rig.startSshd(a)
  }
  assert.is((await h.svc(['host', 'show', 'a'])).code, 0)
  assert.is(rig.connections('a'), 1)
  const removed = await h.svc(['host', 'remove', 'a'])
  assert.is(removed.stdout, `removed host a (${a.ssh}); its key is forgotten\n`)
  assert.is(readFileSync(knownHosts(), 'utf8'), '')
  assert.not.match(readFileSync(hostsYaml(), 'utf8'), /^a:/m)
  await until(() => rig.connections('a') === 0, 'the master connection to a closed')
  assert.is(
    (await h.svc(['host', 'show', 'a'])).stderr,
    'svc: no host "a" in hosts.yaml\nhint: add one: svc host add <name> --ssh user@address\n',
  )
})

/** A command run on host a as its user in its home, given `input` on its stdin. */
const onA = (script: string, input: string) => {
  const a = rig.host('a')
  execFileSync('ip', ['netns', 'exec', a.ns, 'runuser', '-u', a.user, '--', 'bash', '-c', `cd && ${script}`], {
    input,
    stdio: ['pipe', 'ignore', 'pipe'],
  })
}

/** A runner file put on host a as its user, as the kernel installs one; its version. */
function putRunner(text: string): string {
  const hash = createHash('sha256').update(text).digest('hex')
  onA(`mkdir -p .svc-host && cat > ${remoteRunnerPath(hash)}`, text)
  return runnerVersion(hash)
}

/** A runner daemon of that version started on host a, as an attach starts one; its pid. */
async function startRunner(v: string): Promise<number> {
  rig.as(
    'a',
    `{ setsid node "$HOME/.svc-host/runner-${v}.mjs" daemon "$HOME/.svc-host/state" </dev/null >/dev/null 2>&1 & }`,
  )
  const pid = await until(
    () => Number(rig.as('a', 'cat .svc-host/state/runner.pid 2>/dev/null || true').trim()),
    'the runner started',
  )
  return pid
}

function stopRunner(pid: number) {
  // Until it is gone, or a zombie (its adopter may be slow to reap it).
  rig.as(
    'a',
    `kill ${pid}; until case "$(ps -o stat= -p ${pid})" in ""|Z*) true ;; *) false ;; esac; do sleep 0.05; done; ` +
      'rm -rf .svc-host',
  )
}

test('show and doctor say which runner a host has: not yet, this version running, another version running', async () => {
  const a = rig.host('a')
  assert.is((await add('a')).code, 0)
  const runnerLine = async () => {
    const show = await h.svc(['host', 'show', 'a'])
    assert.is(show.code, 0, show.stderr)
    return show.stdout.split('\n').at(-2)
  }
  assert.is(await runnerLine(), `runner ${version} not installed yet (sent with the first lane there)`)

  assert.is(putRunner(hostRunnerFile().text), version)
  assert.is(await runnerLine(), `runner ${version} installed, not running (it starts with the next lane there)`)
  const pid = await startRunner(version)
  try {
    assert.is(await runnerLine(), `runner ${version} running (pid ${pid})`)
  } finally {
    stopRunner(pid)
  }

  // Another build of the runner (an older svc's) still running there: shown by its own version, a note in doctor.
  const other = putRunner(hostRunnerFile().text + '\n// another build\n')
  assert.is.not(other, version)
  const otherPid = await startRunner(other)
  try {
    assert.is(await runnerLine(), `runner ${other} running (pid ${otherPid}), not this kernel's ${version}`)
    const doctor = await h.svc(['doctor'])
    const line = doctor.stdout.split('\n').find((l) => / host a: /.test(l))
    assert.match(line ?? '', new RegExp(`^note {5}host a: ${a.ssh}: Linux `))
    assert.ok(line!.endsWith(`; runner ${other} running (pid ${otherPid}), not this kernel's ${version}`), line)
  } finally {
    stopRunner(otherPid)
  }
})

test("a runner of an earlier build is ended when the kernel attaches; this build's runner takes its lane over", async () => {
  const a = rig.host('a')
  assert.is((await add('a')).code, 0)
  // An earlier build's runner on the host, with a lane it started (as an earlier kernel would have had it do) that
  // reports once it is released.
  const other = putRunner(hostRunnerFile().text + '\n// an earlier build\n')
  const dir = `${a.home}/svc-lanes/old1`
  const script =
    `while [ ! -e ${dir}/go ]; do sleep 0.05; done\n` +
    `echo from before | node "$SERVICE_HOST_RUNNER" report "$SERVICE_HOST_OUTBOX" done\n`
  const startLine = JSON.stringify({ t: 'start', lane: 'old1', dir, script, env: {} })
  onA(`node "$HOME/.svc-host/runner-${other}.mjs" attach "$HOME/.svc-host/state"`, startLine + '\n')
  const oldPid = Number(rig.as('a', 'cat .svc-host/state/runner.pid').trim())
  await until(() => rig.as('a', 'cat .svc-host/state/lanes/old1/pid 2>/dev/null || true').trim(), 'old1 started')

  const events: HostEvent[] = []
  const logs: string[] = []
  const held = join(h.home, 'a.held')
  const link = new HostLink(
    'a',
    { ssh: a.ssh, identity: a.identity },
    { knownHosts: knownHosts(), controlDir: controlDir(h.service) },
    {
      runSsh,
      openLineStream,
      runnerFile: hostRunnerFile,
      readHeld: () => (existsSync(held) ? Number(readFileSync(held, 'utf8')) : 0),
      writeHeld: async (n) => writeFileSync(held, String(n)),
      now: Date.now,
      log: (m) => logs.push(m),
      reconnectMs: { firstMs: 100, maxMs: 400 },
      lostAfterMs: 60_000,
    },
    async (e) => {
      events.push(e)
    },
  )
  let newPid = 0
  try {
    link.start()
    newPid = await until(() => {
      const pid = Number(rig.as('a', 'cat .svc-host/state/runner.pid 2>/dev/null || true').trim())
      return pid !== oldPid && link.state === 'up' ? pid : 0
    }, "this build's runner attached")
    assert.is(
      logs[0],
      `host a: its runner (pid ${oldPid}) runs version ${other}, not this kernel's ${version}; replacing it`,
    )
    assert.match(rig.as('a', `ps -o args= -p ${newPid}`), `/.svc-host/runner-${version}.mjs daemon `)
    // Gone, or a zombie its adopter has not reaped yet.
    assert.match(rig.as('a', `ps -o stat= -p ${oldPid} || true`).trim(), /^(Z.*)?$/)

    // The lane ran on through the change; its start (journaled by the earlier runner), its report and its end
    // arrive, each once, in order.
    rig.as('a', `touch ${dir}/go`)
    await until(() => events.some((e) => e.kind === 'exited'), 'old1 ended')
    assert.equal(
      events.map((e) => (e.kind === 'report' ? `report ${e.status} ${e.body.trim()}` : e.kind)),
      ['started', 'report done from before', 'exited'],
    )
    assert.equal(
      events.map((e) => e.seq),
      [1, 2, 3],
    )
  } finally {
    link.close()
    stopRunner(newPid || oldPid)
  }
})

test('a broken hosts.yaml is one line naming the file and the key, from every host verb and doctor', async () => {
  const { writeFileSync } = await import('node:fs')
  writeFileSync(hostsYaml(), 'a:\n  ssh: nobody\n')
  const list = await h.svc(['host', 'list'])
  assert.is(list.code, 1)
  assert.is(
    list.stderr,
    `svc: ${hostsYaml()}: a.ssh: user@address or user@address:port\nhint: correct ${hostsYaml()}\n`,
  )
  const doctor = await h.svc(['doctor'])
  assert.match(
    doctor.stdout,
    `PROBLEM  hosts: ${hostsYaml()}: a.ssh: user@address or user@address:port\n         fix: correct ${hostsYaml()}\n`,
  )
})

test.run()
