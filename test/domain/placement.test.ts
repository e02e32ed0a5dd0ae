import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  hostOfStart,
  onHostStart,
  placeLane,
  placeReuse,
  readRemoteWorktree,
  remoteReuseScript,
  remoteInboxScript,
  remotePlaces,
  remoteWorktreeScript,
  shellWord,
  type PlacementAsk,
} from '../../kernel/domain/placement.js'

// Issue 27, placement: which host a lane runs on (--host, the role's host, the project's default), what a host can
// run, and the worktree made there. One row per case; every refusal word for word.

test('placeLane: --host, then the role, then the project default; refusals name where the host came from', () => {
  const base: PlacementAsk = { role: 'builder', harness: 'shell', hosts: ['a', 'b'] }
  const rows: [Partial<PlacementAsk>, string][] = [
    [{}, 'home'],
    [{ projectHost: 'a' }, 'a'],
    [{ projectHost: 'a', roleHost: 'b' }, 'b'],
    [{ projectHost: 'a', roleHost: 'b', flag: 'a' }, 'a'],
    [{ role: 'critic', roleHost: 'b' }, 'b'],
    // The project default leaves the roles that stay at home where they are.
    [{ role: 'orchestrator', projectHost: 'a' }, 'home'],
    [{ role: 'play', projectHost: 'a' }, 'home'],
    [{ flag: 'c' }, 'not_found refused: --host names host "c", which is not in hosts.yaml | hosts: a, b'],
    [
      { roleHost: 'c' },
      'not_found refused: roles.builder.host names host "c", which is not in hosts.yaml | hosts: a, b',
    ],
    [
      { projectHost: 'c', hosts: [] },
      'not_found refused: gauntlet.host names host "c", which is not in hosts.yaml | add it: svc host add c --ssh ' +
        'user@address',
    ],
    [
      { role: 'orchestrator', flag: 'a' },
      'usage refused: an orchestrator lane runs at home, not on host a | leave out --host',
    ],
    [
      { role: 'play', roleHost: 'a' },
      'usage refused: a play lane runs at home, not on host a | remove roles.play.host from projects.yaml',
    ],
    [
      { harness: 'claude', projectHost: 'a' },
      'usage refused: a lane on host a runs with the shell harness only (this one would run claude) | pass ' +
        '--harness shell, or start it at home',
    ],
  ]
  for (const [ask, want] of rows) {
    const d = placeLane({ ...base, ...ask })
    const got = d.ok ? (d.host ?? 'home') : `${d.code} ${d.message}${d.hint ? ` | ${d.hint}` : ''}`
    assert.is(got, want, JSON.stringify(ask))
  }
})

test("placeReuse (--reuse): where the earlier lane's directory is, whatever the defaults; refusals word for word", () => {
  type Ask = Parameters<typeof placeReuse>[0]
  const onA: Ask = { earlier: { id: '7', dir: 'r1-k', host: 'a' }, harness: 'shell', hosts: ['a', 'b'] }
  const home: Ask = { ...onA, earlier: { id: '7', dir: 'r1-k' } }
  const rows: [Ask, string][] = [
    [onA, 'a'],
    [{ ...onA, flag: 'a' }, 'a'],
    [home, 'home'],
    [{ ...onA, flag: 'b' }, 'usage --host "b" does not go with --reuse: the lane continues in r1-k on host a as it is'],
    [{ ...home, flag: 'a' }, 'usage --host "a" does not go with --reuse: the lane continues in r1-k at home as it is'],
    [
      { ...onA, hosts: ['b'] },
      'not_found refused: the directory of conv 7 is on host "a", which is not in hosts.yaml | add it back (svc ' +
        'host add a --ssh user@address), or start a new iteration',
    ],
    [
      { ...onA, harness: 'claude' },
      'usage refused: a lane on host a runs with the shell harness only (this one would run claude) | pass ' +
        '--harness shell, or start it at home',
    ],
  ]
  for (const [ask, want] of rows) {
    const d = placeReuse(ask)
    const got = d.ok ? (d.host ?? 'home') : `${d.code} ${d.message}${d.hint ? ` | ${d.hint}` : ''}`
    assert.is(got, want, JSON.stringify(ask))
  }
})

test('remoteReuseScript: the earlier worktree still there and still a worktree, its path never expanded', () => {
  const script = remoteReuseScript("/home/u/svc-lanes/app/it's $HOME")
  const lines = script.split('\n')
  assert.is(
    lines[0],
    `cd '/home/u/svc-lanes/app/it'\\''s $HOME' 2>/dev/null || { echo '/home/u/svc-lanes/app/it'\\''s $HOME is gone ` +
      `(reaped?); start a new iteration instead' >&2; exit 4; }`,
  )
  assert.is(lines.at(-1), 'echo "dir=$(pwd -P)"')
  const d = readRemoteWorktree(
    'a',
    { code: 4, stdout: '', stderr: '/x is gone (reaped?); start a new iteration instead\n' },
    false,
  )
  assert.equal(d, {
    ok: false,
    code: 'conflict',
    message: 'refused: on host a: /x is gone (reaped?); start a new iteration instead',
  })
  const slow = readRemoteWorktree('a', { code: null, stdout: '', stderr: '', timedOut: true }, false)
  assert.is(slow.ok ? '' : slow.message, "host a did not find the lane's worktree in time")
})

test('a lane on a host names it where a pid would be started: a start time no process here has', () => {
  assert.is(onHostStart('a'), 'host:a')
  assert.is(hostOfStart('host:a'), 'a')
  assert.is(hostOfStart('12345'), undefined)
})

test('remoteWorktreeScript: the host clone fetched, the commit checked, the path checked, nothing expanded', () => {
  const w = {
    root: '~/svc-lanes',
    project: 'app',
    dirName: 'r1-auth',
    origin: "/srv/it's.git",
    branch: 'r1/auth',
    start: 'abc123',
  }
  assert.equal(remotePlaces(w), { repo: '~/svc-lanes/.repos/app.git', dir: '~/svc-lanes/app/r1-auth' })
  const script = remoteWorktreeScript(w)
  const lines = script.split('\n')
  assert.is(lines[1], `repo="$HOME"/'svc-lanes/.repos/app.git'`)
  assert.is(lines[2], `dir="$HOME"/'svc-lanes/app/r1-auth'`)
  assert.ok(lines.includes(`git -C "$repo" config remote.origin.url '/srv/it'\\''s.git'`), script)
  assert.ok(lines.includes(`git -C "$repo" worktree add -q -b 'r1/auth' "$dir" 'abc123'`), script)
  const detached = remoteWorktreeScript({ ...w, root: '/data/lanes', branch: undefined })
  assert.match(detached, `repo='/data/lanes/.repos/app.git'`)
  assert.match(detached, `worktree add -q --detach "$dir" 'abc123'`)
  assert.is(shellWord('$(x)'), `'$(x)'`)
  assert.is(
    remoteInboxScript('r1-auth-builder-i1'),
    `cat >> "$HOME"/'.svc-host/state/lanes/r1-auth-builder-i1/inbox.txt'`,
  )
})

test('readRemoteWorktree: the absolute directory, or one line saying why not', () => {
  const rows: [{ code: number | null; stdout: string; stderr: string; timedOut?: boolean }, string][] = [
    [{ code: 0, stdout: 'dir=/home/u/svc-lanes/app/r1-auth\n', stderr: '' }, 'ok /home/u/svc-lanes/app/r1-auth'],
    [
      { code: 3, stdout: '', stderr: 'commit abc is not on origin as the host fetched it; push it first\n' },
      'conflict refused: on host a: commit abc is not on origin as the host fetched it; push it first',
    ],
    [
      { code: 4, stdout: '', stderr: '/x is taken on the host\n' },
      'conflict refused: on host a: /x is taken on the host',
    ],
    [
      { code: 128, stdout: '', stderr: "fatal: '/srv/o.git' does not appear to be a git repository\n" },
      "unavailable host a could not make the lane's worktree: fatal: '/srv/o.git' does not appear to be a git " +
        'repository',
    ],
    [
      { code: null, stdout: '', stderr: '', timedOut: true },
      "unavailable host a did not make the lane's worktree in time",
    ],
  ]
  for (const [answer, want] of rows) {
    const d = readRemoteWorktree('a', answer)
    assert.is(d.ok ? `ok ${d.dir}` : `${d.code} ${d.message}`, want)
  }
})

test.run()
