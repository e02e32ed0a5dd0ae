import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  checkHostsFile,
  hostFound,
  givenUpLine,
  hostRemovable,
  parseSshTarget,
  planHostAdd,
  probeScript,
  readProbe,
  replaceRunnerScript,
  runnerOnHello,
  runnerVersionOf,
  remoteRootProblem,
  sshOptions,
  type HostEntry,
} from '../../kernel/domain/hosts.js'
import { doctorChecks } from '../../kernel/domain/doctor.js'

// Issue 27, hosts: what hosts.yaml and `svc host add` accept, the ssh command line every connection uses, and what a
// probe's answer means. One row per case; every refusal word for word.

test('parseSshTarget: user@address[:port], nothing ssh could read as an option', () => {
  const rows: [string, string][] = [
    ['dev@build.example.com', 'ok dev build.example.com -'],
    ['dev@10.0.0.7:2222', 'ok dev 10.0.0.7 2222'],
    ['dev@[fd00::7]:22', 'ok dev fd00::7 22'],
    ['dev@[fd00::7]', 'ok dev fd00::7 -'],
    ['build.example.com', '--ssh "build.example.com": no user; expected user@address'],
    ['-oProxyCommand=x@y', '--ssh "-oProxyCommand=x@y": the user "-oProxyCommand=x" is not a user name'],
    ['dev@-oProxyCommand=x', '--ssh "dev@-oProxyCommand=x": "-oProxyCommand=x" is not a host name or an IPv4 address'],
    ['dev@host name', '--ssh "dev@host name": "host name" is not a host name or an IPv4 address'],
    ['dev@host:0', '--ssh "dev@host:0": the port 0 is not 1-65535'],
    ['dev@host:65536', '--ssh "dev@host:65536": the port 65536 is not 1-65535'],
    ['dev@host:22x', '--ssh "dev@host:22x": the port 22x is not 1-65535'],
    ['dev@[fd00::7', '--ssh "dev@[fd00::7": an unclosed ['],
    ['dev@[nothex]', '--ssh "dev@[nothex]": nothex is not an IPv6 address'],
    ['Dev@host', '--ssh "Dev@host": the user "Dev" is not a user name'],
  ]
  for (const [input, want] of rows) {
    const d = parseSshTarget(input)
    const got = d.ok ? `ok ${d.target.user} ${d.target.address} ${d.target.port ?? '-'}` : d.message
    assert.is(got, want, input)
    if (!d.ok) assert.is(d.hint, 'give it as user@address, or user@address:port')
  }
})

test('remoteRootProblem: absolute or under ~/, no .., no quotes, not the whole disk or home', () => {
  const rows: [string, string | undefined][] = [
    ['~/svc-lanes', undefined],
    ['/srv/lanes', undefined],
    ['lanes', 'the lanes root "lanes" is neither absolute nor under ~/'],
    ['~other/lanes', 'the lanes root "~other/lanes" is neither absolute nor under ~/'],
    ['/', 'the lanes root / would be the whole disk'],
    ['~', 'the lanes root ~ would be the whole home'],
    ['~/a/../..', 'the lanes root "~/a/../.." holds ..'],
    ["~/it's", 'the lanes root "~/it\'s" holds a quote, $ or a control character'],
    ['~/$(reboot)', 'the lanes root "~/$(reboot)" holds a quote, $ or a control character'],
  ]
  for (const [root, want] of rows) assert.is(remoteRootProblem(root), want, root)
})

test('planHostAdd: the entry written, or one refusal naming what was wrong', () => {
  const hosts = { a: { ssh: 'dev@10.0.0.7' } }
  const rows: [string, Parameters<typeof planHostAdd>[1], string][] = [
    ['a plain host', { name: 'b', ssh: 'dev@10.0.0.8' }, '{"ssh":"dev@10.0.0.8"}'],
    [
      'every option',
      {
        name: 'b',
        ssh: 'dev@10.0.0.8:2222',
        lanesRoot: '/srv/l',
        identity: '/k/id',
        hostKey: `ssh-ed25519 ${'A'.repeat(68)}`,
      },
      '{"ssh":"dev@10.0.0.8:2222","lanes_root":"/srv/l","identity":"/k/id"}',
    ],
    ['a taken name', { name: 'a', ssh: 'dev@10.0.0.8' }, 'conflict: host a is already in hosts.yaml (dev@10.0.0.7)'],
    [
      'a name with capitals',
      { name: 'Build', ssh: 'dev@h' },
      'usage: host name "Build": use lower-case letters, digits and "-", at most 32, starting with a letter or digit',
    ],
    ['a bad target', { name: 'b', ssh: 'h' }, 'usage: --ssh "h": no user; expected user@address'],
    [
      'a relative root',
      { name: 'b', ssh: 'dev@h', lanesRoot: 'x' },
      'usage: --lanes-root: the lanes root "x" is neither absolute nor under ~/',
    ],
    [
      'a relative key file',
      { name: 'b', ssh: 'dev@h', identity: 'id_ed25519' },
      `usage: --identity "id_ed25519": give the key file's absolute path`,
    ],
    [
      'a host key that is not one',
      { name: 'b', ssh: 'dev@h', hostKey: 'fingerprint SHA256:abc' },
      `usage: --host-key: expected "<type> <base64>" as in the host's /etc/ssh/ssh_host_ed25519_key.pub`,
    ],
  ]
  for (const [label, input, want] of rows) {
    const d = planHostAdd(hosts, input)
    assert.is(d.ok ? JSON.stringify(d.entry) : `${d.code}: ${d.message}`, want, label)
  }
})

test('checkHostsFile: an empty file is no hosts; a bad entry is named by its key path', () => {
  const rows: [unknown, string][] = [
    [null, 'ok {}'],
    [{ a: { ssh: 'dev@h', lanes_root: '~/l' } }, 'ok {"a":{"ssh":"dev@h","lanes_root":"~/l"}}'],
    [{ a: { ssh: 'h' } }, 'a.ssh: user@address or user@address:port'],
    [{ a: { ssh: 'dev@h', lanes_root: 'rel' } }, 'a.lanes_root: an absolute path or ~/path with no .. and no quotes'],
    [{ a: { ssh: 'dev@h', port: 22 } }, 'a.port: unknown key'],
    [{ a: {} }, 'a.ssh: missing'],
    [{ 'Bad Name': { ssh: 'dev@h' } }, 'Bad Name: a host name of lower-case letters, digits and "-" (at most 32)'],
    [['dev@h'], '(top level): expected a mapping of host names to entries'],
    ['dev@h', '(top level): expected a mapping of host names to entries'],
  ]
  for (const [doc, want] of rows) {
    const c = checkHostsFile(doc)
    assert.is(c.ok ? `ok ${JSON.stringify(c.value)}` : c.problem, want, JSON.stringify(doc))
  }
})

test("hostFound and hostRemovable: an unknown host names the known ones; a host holding a lane's worktree stays", () => {
  const none = hostFound({}, 'a')
  assert.equal(none, {
    ok: false,
    code: 'not_found',
    message: 'no host "a" in hosts.yaml',
    hint: 'add one: svc host add <name> --ssh user@address',
  })
  const other = hostFound({ b: { ssh: 'dev@h' }, c: { ssh: 'dev@i' } }, 'a')
  assert.is(!other.ok && other.hint, 'hosts: b, c')
  assert.is(hostFound({ b: { ssh: 'dev@h' } }, '__proto__').ok, false)
  const table: [string, { name: string; live: boolean }[], string][] = [
    ['no lane placed there', [], 'allowed'],
    [
      'a live lane',
      [{ name: 'conv-r-k', live: true }],
      'conflict: refused: host a still holds the worktree of 1 lane: conv-r-k (live) | reap it first: svc lane reap ' +
        '<lane> (a live lane is stopped first; --park keeps uncommitted work), then remove the host; if it is gone ' +
        'for good: svc host remove a --forget-lanes',
    ],
    [
      'a stopped lane not reaped, beside a live one',
      [
        { name: 'conv-r-k', live: true },
        { name: 'conv-r-j', live: false },
      ],
      'conflict: refused: host a still holds the worktrees of 2 lanes: conv-r-k (live), conv-r-j (stopped, not ' +
        'reaped) | reap them first: svc lane reap <lane> (a live lane is stopped first; --park keeps uncommitted ' +
        'work), then remove the host; if it is gone for good: svc host remove a --forget-lanes',
    ],
  ]
  for (const [what, placed, want] of table) {
    const d = hostRemovable('a', placed)
    assert.is(d.ok ? 'allowed' : `${d.code}: ${d.message} | ${d.hint}`, want, what)
  }
})

test('givenUpLine: every lane given up, live or not, with what home still holds of it', () => {
  assert.is(
    givenUpLine('a', [
      { name: 'conv-r-k', live: true, held: 2, refs: 'refs/svc/hosts/a/r-k/' },
      { name: 'conv-r-j', live: false, held: 0, refs: 'refs/svc/hosts/a/r-j/' },
    ]),
    'gave up the worktrees of 2 lanes on host a, marked reaped: conv-r-k (live; 2 snapshots kept at ' +
      'refs/svc/hosts/a/r-k/), conv-r-j (stopped; nothing held at home)',
  )
  assert.is(
    givenUpLine('b', [{ name: 'conv-x', live: false, held: 1, refs: 'refs/svc/hosts/b/x/' }]),
    'gave up the worktree of 1 lane on host b, marked reaped: conv-x (stopped; 1 snapshot kept at refs/svc/hosts/b/x/)',
  )
})

test('sshOptions: no questions, a bounded connect, one master per host, only the service known hosts', () => {
  const places = { knownHosts: '/h/.service/hosts/known_hosts', controlDir: '/tmp/svc-ssh-0-abc' }
  const entry: HostEntry = { ssh: 'dev@10.0.0.7:2222', identity: '/k/id' }
  const args = sshOptions('a', entry, places)
  const opts = args.flatMap((a, i) => (args[i - 1] === '-o' ? [a] : []))
  assert.equal(opts, [
    'BatchMode=yes',
    'ConnectTimeout=5',
    'ServerAliveInterval=5',
    'ServerAliveCountMax=2',
    'ControlMaster=auto',
    'ControlPath=/tmp/svc-ssh-0-abc/%C',
    'ControlPersist=60',
    'StrictHostKeyChecking=yes',
    'UserKnownHostsFile=/h/.service/hosts/known_hosts',
    'GlobalKnownHostsFile=/dev/null',
    'HostKeyAlias=svc-host-a',
    'HashKnownHosts=no',
    'UpdateHostKeys=no',
    'LogLevel=ERROR',
    'IdentityFile=/k/id',
    'IdentitiesOnly=yes',
  ])
  assert.equal(args.slice(-6), ['-p', '2222', '-l', 'dev', '--', '10.0.0.7'])
  assert.ok(sshOptions('a', { ssh: 'dev@h' }, places, { learn: true }).includes('StrictHostKeyChecking=accept-new'))
  assert.not.ok(sshOptions('a', { ssh: 'dev@h' }, places).includes('-p'))
  assert.ok(sshOptions('a', { ssh: 'dev@h' }, places, { aliveIntervalS: 1 }).includes('ServerAliveInterval=1'))
})

test("readProbe: the host's facts, or what failed and how to fix it, on one line", () => {
  const entry: HostEntry = { ssh: 'dev@10.0.0.7' }
  const k = '/h/known_hosts'
  const ok = readProbe('a', entry, k, {
    code: 0,
    stdout: 'os=Linux x86_64\ngit=git version 2.39.5\nnode=v20.19.0\nhome=/home/dev\n',
    stderr: "Warning: Permanently added 'svc-host-a' (ED25519) to the list of known hosts.\n",
  })
  assert.equal(ok, {
    ok: true,
    facts: { os: 'Linux x86_64', home: '/home/dev', git: 'git version 2.39.5', node: 'v20.19.0' },
  })
  const bare = readProbe('a', entry, k, {
    code: 0,
    stdout: 'os=Linux x86_64\ngit=\nnode=\nhome=/home/dev\n',
    stderr: '',
  })
  assert.equal(bare, { ok: true, facts: { os: 'Linux x86_64', home: '/home/dev' } })
  // The runner: this kernel's version installed or not, and the one running, read from the command it runs.
  const facts = (lines: string) =>
    readProbe('a', entry, k, { code: 0, stdout: `os=Linux x86_64\nhome=/home/dev\n${lines}`, stderr: '' })
  const v = 'abababababababab'
  const runnerRows: [string, string, unknown][] = [
    ['not installed', `runner=${v} missing\n`, { version: v, installed: false }],
    ['installed, none running', `runner=${v} installed\n`, { version: v, installed: true }],
    [
      'this version running',
      `runner=${v} installed\nrunning=4242 node /home/dev/.svc-host/runner-${v}.mjs daemon /home/dev/.svc-host/state\n`,
      { version: v, installed: true, running: { pid: 4242, version: v } },
    ],
    [
      'another version running',
      `runner=${v} missing\nrunning=77 /usr/bin/node /home/dev/.svc-host/runner-0123456789abcdef.mjs daemon ` +
        `/home/dev/.svc-host/state\n`,
      { version: v, installed: false, running: { pid: 77, version: '0123456789abcdef' } },
    ],
    [
      'a reused pid that is no runner',
      `runner=${v} installed\nrunning=4242 vim notes.txt\n`,
      { version: v, installed: true },
    ],
    ['an answer from an older probe', '', undefined],
  ]
  for (const [label, lines, want] of runnerRows) {
    const d = facts(lines)
    assert.equal(d.ok && d.facts.runner, want, label)
  }
  const rows: [string, Parameters<typeof readProbe>[3], string][] = [
    [
      'a deadline',
      { code: null, stdout: '', stderr: '', timedOut: true },
      'host a (dev@10.0.0.7) did not answer in time',
    ],
    [
      'a changed key',
      {
        code: 255,
        stdout: '',
        stderr: '@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\nHost key verification failed.\n',
      },
      'host a (dev@10.0.0.7): its host key is not the one recorded in /h/known_hosts',
    ],
    [
      'no recorded key',
      {
        code: 255,
        stdout: '',
        stderr:
          'No ED25519 host key is known for svc-host-a and you have requested strict checking.\nHost key ' +
          'verification failed.\n',
      },
      'host a (dev@10.0.0.7): its host key is not the one recorded in /h/known_hosts',
    ],
    [
      'a refused key',
      { code: 255, stdout: '', stderr: 'dev@10.0.0.7: Permission denied (publickey).\n' },
      'host a (dev@10.0.0.7) refused the key: dev@10.0.0.7: Permission denied (publickey).',
    ],
    [
      'refused connection',
      { code: 255, stdout: '', stderr: 'ssh: connect to host 10.0.0.7 port 22: Connection refused\n' },
      'host a (dev@10.0.0.7) is unreachable: ssh: connect to host 10.0.0.7 port 22: Connection refused',
    ],
    [
      'no ssh',
      { code: 255, stdout: '', stderr: 'cannot run ssh: spawn ssh ENOENT' },
      'host a (dev@10.0.0.7): ssh failed: cannot run ssh: spawn ssh ENOENT',
    ],
    [
      'a shell that fails',
      { code: 127, stdout: '', stderr: 'sh: 1: uname: not found\n' },
      'host a (dev@10.0.0.7): the probe exited 127: sh: 1: uname: not found',
    ],
    [
      'a banner instead of an answer',
      { code: 0, stdout: 'Welcome!\n', stderr: '' },
      'host a (dev@10.0.0.7) answered the probe with something else: "Welcome!\\n"',
    ],
  ]
  for (const [label, answer, want] of rows) {
    const d = readProbe('a', entry, k, answer)
    assert.is(d.ok ? 'ok' : d.message, want, label)
    assert.is(!d.ok && d.code, 'unavailable', label)
  }
})

test('probeScript: asks for the runner of this version by its file, and which runner runs, ending with 0', () => {
  const script = probeScript('ab'.repeat(32))
  assert.match(
    script,
    'if [ -f "$HOME/.svc-host/runner-abababababababab.mjs" ]; then echo "runner=abababababababab installed"; else ' +
      'echo "runner=abababababababab missing"; fi',
  )
  assert.match(script, 'p=$(cat "$HOME/.svc-host/state/runner.pid" 2>/dev/null)')
  // A pid file holding anything but digits is never given to kill.
  assert.match(script, 'case "$p" in ""|*[!0-9]*) ;; *) if kill -0 "$p"')
  assert.ok(script.endsWith('esac'))
})

test('runnerOnHello: a runner of this version is kept; another is replaced once, then kept with a warning', () => {
  const want = 'abababababababab'
  const rows: [string, { runner?: string; pid: number }, number | undefined, unknown][] = [
    ['this version', { runner: want, pid: 9 }, undefined, { act: 'keep' }],
    ['this version after a replacement', { runner: want, pid: 10 }, 9, { act: 'keep' }],
    [
      'another version',
      { runner: '0123456789abcdef', pid: 9 },
      undefined,
      {
        act: 'replace',
        pid: 9,
        message: `its runner (pid 9) runs version 0123456789abcdef, not this kernel's ${want}; replacing it`,
      },
    ],
    [
      'a runner from before runners named their version',
      { pid: 9 },
      undefined,
      {
        act: 'replace',
        pid: 9,
        message: `its runner (pid 9) runs version unknown, not this kernel's ${want}; replacing it`,
      },
    ],
    [
      'the same runner again: it could not be ended',
      { runner: '0123456789abcdef', pid: 9 },
      9,
      {
        act: 'keep',
        warning:
          `its runner (pid 9) runs version 0123456789abcdef, not this kernel's ${want}, and could not be ` +
          `replaced; using it`,
      },
    ],
  ]
  for (const [label, hello, tried, want_] of rows) assert.equal(runnerOnHello(want, hello, tried), want_, label)
  assert.is(runnerVersionOf('/home/dev/.svc-host/runner-0123456789abcdef.mjs'), '0123456789abcdef')
  assert.is(runnerVersionOf('runner-0123456789abcdef.mjs'), '0123456789abcdef')
  assert.is(runnerVersionOf('/work/dist/kernel/runner/host-runner.js'), undefined)
  // Only a runner of the service is ended: a pid reused by another process is left alone.
  assert.is(
    replaceRunnerScript(42),
    'case "$(ps -o args= -p 42 2>/dev/null)" in *"/.svc-host/runner-"*".mjs daemon "*) kill 42 ;; esac; ' +
      'i=0; while [ $i -lt 100 ]; do case "$(ps -o stat= -p 42 2>/dev/null)" in ""|Z*) break ;; esac; sleep 0.05; ' +
      'i=$((i+1)); done; true',
  )
})

test('doctor: a host that answers with git and node is ok; one that does not is a problem with its fix', () => {
  const base = {
    kernel: { version: '0.1.0', pid: 1, port: 2 },
    tools: { claude: {}, codex: {}, git: { path: '/usr/bin/git' }, lsof: {} },
    harnessesInUse: [],
    hasProc: true,
    home: { path: '/h/.service', writable: true },
    configPath: '/h/.service/projects.yaml',
    roots: [],
    badStoreFiles: [],
  }
  const facts = { os: 'Linux x86_64', home: '/home/dev' }
  const tools = { git: 'git version 2.39.5', node: 'v20.19.0' }
  const v = 'abababababababab'
  const old = '0123456789abcdef'
  const checks = doctorChecks({
    ...base,
    hosts: [
      {
        name: 'a',
        ssh: 'dev@h',
        lanesRoot: '~/svc-lanes',
        facts: { ...facts, git: 'git version 2.39.5', node: 'v20.19.0' },
      },
      { name: 'b', ssh: 'dev@i', lanesRoot: '~/svc-lanes', facts: { ...facts, node: 'v20.19.0' } },
      { name: 'c', ssh: 'dev@j', lanesRoot: '~/svc-lanes', facts: { ...facts, git: 'git version 2.39.5' } },
      {
        name: 'e',
        ssh: 'dev@l',
        lanesRoot: '~/svc-lanes',
        facts: { ...facts, git: 'git version 2.39.5', node: 'v18.19.1' },
      },
      {
        name: 'f',
        ssh: 'dev@m',
        lanesRoot: '~/svc-lanes',
        facts: { ...facts, ...tools, runner: { version: v, installed: false } },
      },
      {
        name: 'g',
        ssh: 'dev@n',
        lanesRoot: '~/svc-lanes',
        facts: { ...facts, ...tools, runner: { version: v, installed: true } },
      },
      {
        name: 'h',
        ssh: 'dev@o',
        lanesRoot: '~/svc-lanes',
        facts: { ...facts, ...tools, runner: { version: v, installed: true, running: { pid: 9, version: v } } },
      },
      {
        name: 'i',
        ssh: 'dev@p',
        lanesRoot: '~/svc-lanes',
        facts: { ...facts, ...tools, runner: { version: v, installed: true, running: { pid: 8, version: old } } },
      },
      {
        name: 'd',
        ssh: 'dev@k',
        lanesRoot: '~/svc-lanes',
        problem: { message: 'host d (dev@k) did not answer in time', hint: 'check it' },
      },
    ],
  }).filter((c) => c.name.startsWith('host'))
  assert.equal(
    checks.map(
      (c) => `${c.ok ? (c.note ? 'note' : 'ok') : 'PROBLEM'} ${c.name}: ${c.detail}${c.fix ? ` / ${c.fix}` : ''}`,
    ),
    [
      'ok host a: dev@h: Linux x86_64; git version 2.39.5; node v20.19.0',
      'PROBLEM host b: dev@i: Linux x86_64; no git; node v20.19.0 / install git on b (apt-get install git)',
      'PROBLEM host c: dev@j: Linux x86_64; git version 2.39.5; no node / install Node 20 or newer on c',
      'PROBLEM host e: dev@l: Linux x86_64; git version 2.39.5; node v18.19.1 / install Node 20 or newer on e',
      `ok host f: dev@m: Linux x86_64; git version 2.39.5; node v20.19.0; runner ${v} not installed yet (sent with ` +
        `the first lane there)`,
      `ok host g: dev@n: Linux x86_64; git version 2.39.5; node v20.19.0; runner ${v} installed, not running (it ` +
        `starts with the next lane there)`,
      `ok host h: dev@o: Linux x86_64; git version 2.39.5; node v20.19.0; runner ${v} running (pid 9)`,
      `note host i: dev@p: Linux x86_64; git version 2.39.5; node v20.19.0; runner ${old} running (pid 8), not this ` +
        `kernel's ${v}`,
      'PROBLEM host d: host d (dev@k) did not answer in time / check it',
    ],
  )
  const broken = doctorChecks({
    ...base,
    hostsError: { path: '/h/.service/hosts.yaml', problem: '/h/.service/hosts.yaml: a.ssh: missing' },
  })
  assert.equal(broken.at(-1), {
    name: 'hosts',
    ok: false,
    detail: '/h/.service/hosts.yaml: a.ssh: missing',
    fix: 'correct /h/.service/hosts.yaml',
  })
})

test.run()
