import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, until } from '../helpers/home.js'
import { SshHosts } from '../helpers/ssh-hosts.js'
import { controlDir } from '../../kernel/io/hosts/ssh.js'

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
