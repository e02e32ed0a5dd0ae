import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  heldAfterHello,
  journalAfterAck,
  linkState,
  nextSeq,
  parseFromKernel,
  parseFromRunner,
  planRemoteReap,
  receive,
  reconnectDelay,
  toResend,
} from '../../kernel/domain/host-stream.js'
import { attachCommand, gitOverSsh, installRunnerScript, readInstall } from '../../kernel/domain/hosts.js'

// Issue 27, the host runner's stream: numbered events, applied once and in order, sent again after a reconnect until
// acknowledged; a silent host is lost after a while, never deleted. One row per case.

test('receive: the next event is applied; one already held is acknowledged again; a gap asks again', () => {
  const rows: [number, number, string][] = [
    [0, 1, 'apply ack 1'],
    [4, 5, 'apply ack 5'],
    [5, 5, 'skip ack 5'],
    [5, 2, 'skip ack 5'],
    [5, 7, 'skip ack 5 resume after 5'],
  ]
  for (const [held, seq, want] of rows) {
    const r = receive(held, seq)
    const got =
      `${r.apply ? 'apply' : 'skip'} ack ${r.ack}` +
      `${!r.apply && r.resumeAfter !== undefined ? ` resume after ${r.resumeAfter}` : ''}`
    assert.is(got, want, `held ${held}, seq ${seq}`)
  }
})

test('the journal: what is sent again, what is kept after an ack, the next seq', () => {
  const j = [{ seq: 7 }, { seq: 5 }, { seq: 6 }]
  assert.equal(toResend(j, 0), [{ seq: 5 }, { seq: 6 }, { seq: 7 }])
  assert.equal(toResend(j, 5), [{ seq: 6 }, { seq: 7 }])
  assert.equal(toResend(j, 7), [])
  assert.equal(journalAfterAck(j, 6), [{ seq: 7 }])
  assert.equal(journalAfterAck(j, 9), [])
  assert.is(nextSeq(j, 4), 8)
  assert.is(nextSeq([], 12), 13, 'an empty journal continues after what was acknowledged')
  assert.is(nextSeq([], 0), 1)
  assert.is(heldAfterHello(3, 8), 8, 'a kernel that lost its count continues where the runner was acknowledged')
  assert.is(heldAfterHello(8, 3), 8)
})

test('linkState and reconnectDelay: up while heard from; lost after the limit; backoff doubles to a cap', () => {
  const rows: [boolean, number, string][] = [
    [true, 1_000, 'up'],
    [false, 1_000, 'reconnecting'],
    [false, 30_000, 'host-lost'],
    [true, 30_000, 'host-lost'],
  ]
  for (const [connected, silentMs, want] of rows)
    assert.is(linkState({ connected, lastHeardAt: 100_000 - silentMs, now: 100_000, lostAfterMs: 30_000 }), want)
  assert.equal(
    [0, 1, 2, 3, 4, 10].map((n) => reconnectDelay(n, 250, 5_000)),
    [250, 500, 1_000, 2_000, 4_000, 5_000],
  )
})

test('lines are checked: a bad one (a git fact out of shape too) is named and never applied', () => {
  const rows: [string, string][] = [
    ['{"t":"hello","version":"1","pid":9,"last":3,"acked":2}', 'ok hello'],
    ['{"t":"event","event":{"seq":1,"at":5,"lane":"l1","kind":"started","pid":42}}', 'ok event'],
    [
      '{"t":"event","event":{"seq":2,"at":5,"lane":"l1","kind":"report","id":"001-7","status":"done","body":"ok"}}',
      'ok event',
    ],
    [
      '{"t":"event","event":{"seq":0,"at":5,"lane":"l1","kind":"started","pid":42}}',
      'the host runner sent event.seq: expected >=1, got 0',
    ],
    [
      '{"t":"event","event":{"seq":1,"at":5,"lane":"../x","kind":"started","pid":42}}',
      'the host runner sent event.lane: a lane name of letters, digits, ".", "_" and "-"',
    ],
    [
      '{"t":"event","event":{"seq":1,"at":5,"lane":"l1","kind":"started","pid":42,"extra":1}}',
      'the host runner sent event.extra: unknown key',
    ],
    [
      '{"t":"event","event":{"seq":1,"at":5,"lane":"l1","kind":"report","id":"a/b","status":"done","body":""}}',
      'the host runner sent event.id: a report id of letters, digits, ".", "_" and "-"',
    ],
    [
      '{"t":"event","event":{"seq":3,"at":5,"lane":"l1","kind":"git","facts":{"branch":"r/k","head":"ab",' +
        '"upstream":"origin/r/k","ahead":2,"behind":0,"dirty":true,"dirtyPaths":3}}}',
      'ok event',
    ],
    [
      '{"t":"event","event":{"seq":3,"at":5,"lane":"l1","kind":"git",' +
        '"facts":{"ahead":-1,"dirty":false,"dirtyPaths":0}}}',
      'the host runner sent event.facts.ahead: expected >=0, got -1',
    ],
    [
      '{"t":"event","event":{"seq":3,"at":5,"lane":"l1","kind":"git","facts":{"dirty":"yes","dirtyPaths":1}}}',
      'the host runner sent event.facts.dirty: expected boolean, got "yes"',
    ],
    ['{"t":"beat","last":4}', 'ok beat'],
    ['not json', 'the host runner sent a line that is not JSON: "not json"'],
  ]
  for (const [line, want] of rows) {
    const m = parseFromRunner(line)
    assert.is(m.ok ? `ok ${m.value.t}` : m.problem, want, line)
  }
  const k = parseFromKernel('{"t":"start","lane":"l1","dir":"/d","script":"true","env":{"A-B":"x"}}')
  assert.is(!k.ok && k.problem.startsWith('the kernel sent env.A-B'), true)
  assert.is(parseFromKernel('{"t":"ack","seq":3}').ok, true)
  assert.is(parseFromKernel('{"t":"resume","after":0,"beatMs":500}').ok, true)
  const fast = parseFromKernel('{"t":"resume","after":0,"beatMs":1}')
  assert.is(!fast.ok && fast.problem, 'the kernel sent beatMs: expected >=50, got 1')
})

test('planRemoteReap: the worktree goes only when a fresh snapshot is the one held at home', () => {
  const now = { commit: 'c2', tree: 't1', parent: 'h1' }
  const rows: [string, Parameters<typeof planRemoteReap>[0], ReturnType<typeof planRemoteReap>][] = [
    [
      'same tree and HEAD as held',
      { alive: false, gitWorktree: true, now, held: { tree: 't1', parent: 'h1' } },
      { do: 'remove' },
    ],
    [
      'a file changed since',
      { alive: false, gitWorktree: true, now, held: { tree: 't0', parent: 'h1' } },
      { do: 'hold', snapshot: 'c2' },
    ],
    [
      'a commit made since',
      { alive: false, gitWorktree: true, now, held: { tree: 't1', parent: 'h0' } },
      { do: 'hold', snapshot: 'c2' },
    ],
    ['nothing held on the host', { alive: false, gitWorktree: true, now }, { do: 'hold', snapshot: 'c2' }],
    [
      'still running',
      { alive: true, gitWorktree: true },
      { do: 'refuse', reason: 'the lane is still running; stop it first' },
    ],
    [
      'not a git worktree',
      { alive: false, gitWorktree: false },
      { do: 'refuse', reason: 'the lane directory is not a git worktree: its bytes cannot be held' },
    ],
    [
      'no snapshot made',
      { alive: false, gitWorktree: true },
      { do: 'refuse', reason: 'no snapshot of the worktree could be made' },
    ],
    [
      'a process left working inside (step 3)',
      {
        alive: false,
        gitWorktree: true,
        now,
        dir: '/h/l',
        processes: [{ pid: 42, command: 'sleep 60', cwdInside: true, files: [] }],
      },
      { do: 'refuse', reason: 'a process has its working directory inside /h/l: 42 (sleep 60)' },
    ],
    [
      'a repository checked out inside: its files are in no snapshot',
      {
        alive: false,
        gitWorktree: true,
        now,
        dir: '/h/l',
        nested: ['lib', 'vendor/x'],
        held: { tree: 't1', parent: 'h1' },
      },
      {
        do: 'refuse',
        reason:
          'a patch cannot carry the files of a git repository inside the worktree: lib, vendor/x; move them out of ' +
          '/h/l first',
      },
    ],
    [
      'nothing left inside',
      { alive: false, gitWorktree: true, now, dir: '/h/l', processes: [], held: { tree: 't1', parent: 'h1' } },
      { do: 'remove' },
    ],
  ]
  for (const [name, facts, want] of rows) assert.equal(planRemoteReap(facts), want, name)
})

test('gitOverSsh: git reaches a host over the same options, each quoted; the URL of a directory there', () => {
  const places = { knownHosts: "/h/it's/known_hosts", controlDir: '/tmp/c' }
  const over = gitOverSsh('a', { ssh: 'u@10.0.0.1:2222' }, places, '~/svc-lanes/l1')
  assert.is(over.url, 'ssh://10.0.0.1/~/svc-lanes/l1')
  assert.ok(over.sshCommand.startsWith("ssh '-o' 'BatchMode=yes'"), over.sshCommand)
  assert.ok(over.sshCommand.endsWith("'-p' '2222' '-l' 'u'"), over.sshCommand)
  assert.match(over.sshCommand, `'UserKnownHostsFile=/h/it'\\''s/known_hosts'`)
  assert.is(gitOverSsh('a', { ssh: 'u@[fd00::1]' }, places, '/srv/l1').url, 'ssh://[fd00::1]/srv/l1')
  assert.is(gitOverSsh('a', { ssh: 'u@h' }, places, 'lanes/l1').url, 'ssh://h/~/lanes/l1')
})

test('the runner is installed by its hash, and what an install answered means', () => {
  const hash = 'ab'.repeat(32)
  assert.match(installRunnerScript(hash), 'if [ -f "$HOME/.svc-host/runner-abababababababab.mjs" ]; then echo have;')
  assert.is(
    attachCommand(hash),
    'exec node "$HOME/.svc-host/runner-abababababababab.mjs" attach "$HOME/.svc-host/state"',
  )
  const ok = { code: 0, stdout: 'installed\nnode=v20.19.0\n', stderr: '' }
  assert.equal(readInstall('a', ok), { ok: true })
  assert.equal(readInstall('a', { ...ok, stdout: 'have\nnode=\n' }), {
    ok: false,
    code: 'unavailable',
    message: 'host a has no node on its PATH',
    hint: 'install Node 20 or newer on a',
  })
  assert.equal(readInstall('a', { ...ok, stdout: 'have\nnode=v18.19.1\n' }), {
    ok: false,
    code: 'unavailable',
    message: 'host a has node v18.19.1; the host runner needs 20 or newer',
    hint: 'install Node 20 or newer on a',
  })
  const full = readInstall('a', {
    code: 1,
    stdout: '',
    stderr: 'mkdir: cannot create directory: No space left on device\n',
  })
  assert.is(
    !full.ok && full.message,
    'host a: the host runner could not be installed: mkdir: cannot create directory: No space left on device',
  )
})

test.run()
