import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  ACTIVITIES,
  STARTING_WINDOW_MS,
  deriveActivity,
  hasEnded,
  harnessWords,
  hostLostEvidence,
  isLive,
  newestPhase,
  readsGitFacts,
  gitFactsFrom,
  takesMessages,
  turnEndedWithoutReport,
  type Activity,
  type ActivityFacts,
  type Evidence,
} from '../../kernel/domain/activity.js'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import type { Role } from '../../kernel/domain/keys.js'

const CREATED = 1_700_000_000_000
const ev = (source: string, at: number, detail?: string): Evidence =>
  detail === undefined ? { source, at } : { source, at, detail }
const alive = ev('pid 4242 start 99', CREATED + 10)
const spawnError = ev('runner', CREATED + 5, 'ENOENT: claude')
const ended = ev('process exit', CREATED + 20, 'exit 0')
const archived = ev('archive', CREATED + 30)
const phase = (value: 'working' | 'idle' | 'needs-you', at: number, reason?: 'question' | 'permission' | 'plan') =>
  reason ? { value, reason, source: 'stream: can_use_tool', at } : { value, source: 'stream', at }

// ---- the table of SPEC.md section 3, in order ----

test('ACTIVITIES lists the rows of SPEC.md section 3 in order', () => {
  assert.equal([...ACTIVITIES], ['failed-to-start', 'host-lost', 'needs-you', 'working', 'idle', 'starting', 'stopped'])
})

test('the starting window is 3 minutes', () => {
  assert.is(STARTING_WINDOW_MS, 180_000)
})

test('failed-to-start: a recorded spawn error', () => {
  const a = deriveActivity({ createdAt: CREATED, spawnError }, CREATED + 1000)
  assert.is(a.value, 'failed-to-start')
  assert.equal(a.evidence, spawnError)
})

test('failed-to-start wins over every later row (first match wins)', () => {
  const now = CREATED + 1000
  const variants: ActivityFacts[] = [
    { createdAt: CREATED, spawnError, alive, phase: phase('needs-you', CREATED + 11, 'question') },
    { createdAt: CREATED, spawnError, alive, phase: phase('working', CREATED + 11) },
    { createdAt: CREATED, spawnError, alive, phase: phase('idle', CREATED + 11) },
    { createdAt: CREATED, spawnError, alive },
    { createdAt: CREATED, spawnError }, // would otherwise be starting (within the window)
    { createdAt: CREATED, spawnError, ended },
  ]
  for (const f of variants) {
    const a = deriveActivity(f, now)
    assert.is(a.value, 'failed-to-start', JSON.stringify(f))
    assert.equal(a.evidence, spawnError)
    assert.is(a.reason, undefined)
  }
  // long after the window too
  assert.is(
    deriveActivity({ createdAt: CREATED, spawnError }, CREATED + 10 * STARTING_WINDOW_MS).value,
    'failed-to-start',
  )
})

test('needs-you: alive and waiting, with each reason carried', () => {
  for (const reason of ['question', 'permission', 'plan'] as const) {
    const p = phase('needs-you', CREATED + 50, reason)
    const a = deriveActivity({ createdAt: CREATED, alive, phase: p }, CREATED + 1000)
    assert.is(a.value, 'needs-you')
    assert.is(a.reason, reason)
    assert.is(a.evidence.source, p.source)
    assert.is(a.evidence.at, p.at)
  }
})

test('needs-you wins over working, idle, starting and stopped facts', () => {
  const p = phase('needs-you', CREATED + 50, 'permission')
  // alive harness with an ended record (the kernel's view lagging) and long after the window
  const a = deriveActivity({ createdAt: CREATED, alive, phase: p, ended }, CREATED + 10 * STARTING_WINDOW_MS)
  assert.is(a.value, 'needs-you')
  assert.is(a.reason, 'permission')
})

test('needs-you requires a live harness', () => {
  const p = phase('needs-you', CREATED + 50, 'question')
  assert.is(deriveActivity({ createdAt: CREATED, phase: p }, CREATED + 1000).value, 'starting')
  assert.is(deriveActivity({ createdAt: CREATED, phase: p }, CREATED + STARTING_WINDOW_MS).value, 'stopped')
  assert.is(deriveActivity({ createdAt: CREATED, phase: p, ended }, CREATED + 1000).value, 'stopped')
})

test('working: alive and working, evidence is the phase statement', () => {
  const p = { value: 'working' as const, source: 'hook', at: CREATED + 60, detail: 'PreToolUse' }
  const a = deriveActivity({ createdAt: CREATED, alive, phase: p }, CREATED + 1000)
  assert.is(a.value, 'working')
  assert.is(a.reason, undefined)
  assert.is(a.evidence.source, 'hook')
  assert.is(a.evidence.at, CREATED + 60)
  assert.is(a.evidence.detail, 'PreToolUse')
})

test('working requires a live harness', () => {
  const p = phase('working', CREATED + 60)
  assert.is(deriveActivity({ createdAt: CREATED, phase: p }, CREATED + 1000).value, 'starting')
  assert.is(deriveActivity({ createdAt: CREATED, phase: p }, CREATED + 4 * 60_000).value, 'stopped')
})

test('idle: alive with an idle phase carries the phase as evidence', () => {
  const p = phase('idle', CREATED + 70)
  const a = deriveActivity({ createdAt: CREATED, alive, phase: p }, CREATED + 1000)
  assert.is(a.value, 'idle')
  assert.is(a.evidence.source, p.source)
  assert.is(a.evidence.at, p.at)
})

test('idle: alive with no phase at all carries the liveness check as evidence', () => {
  const a = deriveActivity({ createdAt: CREATED, alive }, CREATED + 1000)
  assert.is(a.value, 'idle')
  assert.equal(a.evidence, alive)
  // still idle (not stopped) long after the starting window while the harness lives
  assert.is(deriveActivity({ createdAt: CREATED, alive }, CREATED + 100 * STARTING_WINDOW_MS).value, 'idle')
})

test('idle wins over starting (alive inside the window is not starting)', () => {
  assert.is(deriveActivity({ createdAt: CREATED, alive }, CREATED + 1).value, 'idle')
})

test('starting: not alive, not ended, created under 3 minutes ago', () => {
  const a = deriveActivity({ createdAt: CREATED }, CREATED + 1000)
  assert.is(a.value, 'starting')
  assert.is(a.evidence.at, CREATED)
  assert.type(a.evidence.source, 'string')
  assert.ok(a.evidence.source.length > 0)
})

test('starting boundary: 179999 ms is starting, 180000 ms is stopped', () => {
  assert.is(deriveActivity({ createdAt: CREATED }, CREATED).value, 'starting')
  assert.is(deriveActivity({ createdAt: CREATED }, CREATED + 179_999).value, 'starting')
  assert.is(deriveActivity({ createdAt: CREATED }, CREATED + 180_000).value, 'stopped')
  assert.is(deriveActivity({ createdAt: CREATED }, CREATED + 180_001).value, 'stopped')
})

test('an ended lane is never starting, even inside the window', () => {
  const a = deriveActivity({ createdAt: CREATED, ended }, CREATED + 1)
  assert.is(a.value, 'stopped')
  assert.equal(a.evidence, ended)
  assert.is(deriveActivity({ createdAt: CREATED, ended }, CREATED + 179_999).value, 'stopped')
})

test('stopped: not alive, not ended, past the window, with evidence', () => {
  const a = deriveActivity({ createdAt: CREATED }, CREATED + 180_000)
  assert.is(a.value, 'stopped')
  assert.type(a.evidence.source, 'string')
  assert.ok(a.evidence.source.length > 0)
  assert.type(a.evidence.at, 'number')
})

test('archived is always stopped, whatever else is true', () => {
  const now = CREATED + 1000
  const variants: ActivityFacts[] = [
    { createdAt: CREATED, archived },
    { createdAt: CREATED, archived, spawnError },
    { createdAt: CREATED, archived, alive, phase: phase('needs-you', CREATED + 11, 'plan') },
    { createdAt: CREATED, archived, alive, phase: phase('working', CREATED + 11) },
    { createdAt: CREATED, archived, alive },
    { createdAt: CREATED, archived, ended },
  ]
  for (const f of variants) {
    const a = deriveActivity(f, now)
    assert.is(a.value, 'stopped', JSON.stringify(f))
    assert.equal(a.evidence, archived)
    assert.is(a.reason, undefined)
  }
  assert.is(deriveActivity({ createdAt: CREATED, archived }, CREATED + 10 * STARTING_WINDOW_MS).value, 'stopped')
})

test('deriveActivity is pure: it does not change its facts', () => {
  const f: ActivityFacts = { createdAt: CREATED, alive, phase: phase('needs-you', CREATED + 5, 'question') }
  const before = JSON.stringify(f)
  deriveActivity(f, CREATED + 1)
  deriveActivity(f, CREATED + 1_000_000)
  assert.is(JSON.stringify(f), before)
  assert.equal(deriveActivity(f, CREATED + 1), deriveActivity(f, CREATED + 1))
})

// ---- isLive ----

test('isLive: the alive rows, starting and host-lost are live; failed-to-start and stopped are not', () => {
  const expected: Record<Activity, boolean> = {
    'failed-to-start': false,
    'host-lost': true,
    'needs-you': true,
    working: true,
    idle: true,
    starting: true,
    stopped: false,
  }
  for (const a of ACTIVITIES) assert.is(isLive(a), expected[a], a)
})

test('isLive over derived values: a starting lane counts as live, an ended one does not', () => {
  assert.ok(isLive(deriveActivity({ createdAt: CREATED }, CREATED + 179_999).value))
  assert.not.ok(isLive(deriveActivity({ createdAt: CREATED }, CREATED + 180_000).value))
  assert.not.ok(isLive(deriveActivity({ createdAt: CREATED, ended }, CREATED + 1).value))
  assert.not.ok(isLive(deriveActivity({ createdAt: CREATED, archived, alive }, CREATED + 1).value))
})

// ---- newestPhase ----

test('newestPhase: no candidates or only undefined gives undefined', () => {
  assert.is(newestPhase(), undefined)
  assert.is(newestPhase(undefined, undefined), undefined)
})

test('newestPhase: the newest statement wins regardless of position', () => {
  const stream = { value: 'working', source: 'stream', at: 100 }
  const hook = { value: 'idle', source: 'hook', at: 300 }
  const mark = { value: 'needs-you', source: 'self-mark', at: 200 }
  assert.is(newestPhase(stream, hook, mark), hook)
  assert.is(newestPhase(hook, stream, mark), hook)
  assert.is(newestPhase(mark, stream, hook), hook)
  assert.is(newestPhase(undefined, stream, undefined), stream)
  assert.is(newestPhase(stream, undefined, mark), mark)
})

test('newestPhase: on equal times the later candidate wins', () => {
  const a = { source: 'stream', at: 500 }
  const b = { source: 'hook', at: 500 }
  assert.is(newestPhase(a, b), b)
  assert.is(newestPhase(b, a), a)
})

test('harnessWords: the harness’s own words when a failure, an error or a retry decided the activity; nothing otherwise', () => {
  const table: [Parameters<typeof harnessWords>[0], string | undefined][] = [
    [
      { value: 'failed-to-start', evidence: { source: 'spawn', at: 1, detail: 'Not logged in · Please run /login' } },
      'failed-to-start (spawn: Not logged in · Please run /login)',
    ],
    [
      { value: 'idle', evidence: { source: 'error', at: 1, detail: 'API Error: 400 bad' } },
      'idle (error: API Error: 400 bad)',
    ],
    [
      { value: 'working', evidence: { source: 'retrying', at: 1, detail: 'Reconnecting... 2/5 (timeout)' } },
      'working (retrying: Reconnecting... 2/5 (timeout))',
    ],
    [{ value: 'idle', evidence: { source: 'stream: result', at: 1 } }, undefined],
    [
      {
        value: 'needs-you',
        reason: 'plan',
        evidence: { source: 'stream: can_use_tool', at: 1, detail: 'ExitPlanMode' },
      },
      undefined,
    ],
    [{ value: 'idle', evidence: { source: 'error', at: 1 } }, undefined],
    [
      { value: 'host-lost', evidence: { source: 'host a', at: 1, detail: 'no answer for 31 s' } },
      'host-lost (host a: no answer for 31 s)',
    ],
  ]
  for (const [view, want] of table) assert.is(harnessWords(view), want, JSON.stringify(view))
})

// ---- issue 27: a lane whose host stopped answering ----

const hostLost = ev('host a', CREATED + 40, 'no answer for 31 s')

test('host-lost: a lost host decides over every alive, starting and stopped row while the lane has not ended', () => {
  const now = CREATED + 1000
  const table: [string, ActivityFacts][] = [
    ['needs-you', { createdAt: CREATED, hostLost, alive, phase: phase('needs-you', CREATED + 11, 'question') }],
    ['working', { createdAt: CREATED, hostLost, alive, phase: phase('working', CREATED + 11) }],
    ['idle', { createdAt: CREATED, hostLost, alive }],
    ['starting (its start not arrived)', { createdAt: CREATED, hostLost }],
    ['stopped (no live harness, old)', { createdAt: CREATED - STARTING_WINDOW_MS * 2, hostLost }],
  ]
  for (const [was, f] of table) {
    const a = deriveActivity(f, now)
    assert.is(a.value, 'host-lost', was)
    assert.equal(a.evidence, hostLost, was)
  }
})

test('host-lost: an archived lane, a spawn error and an end that arrived keep their own rows', () => {
  const now = CREATED + 1000
  const table: [Activity, ActivityFacts, Evidence][] = [
    ['stopped', { createdAt: CREATED, hostLost, alive, archived }, archived],
    ['failed-to-start', { createdAt: CREATED, hostLost, spawnError }, spawnError],
    ['stopped', { createdAt: CREATED, hostLost, ended }, ended],
  ]
  for (const [want, f, evidence] of table) {
    const a = deriveActivity(f, now)
    assert.is(a.value, want, JSON.stringify(f))
    assert.equal(a.evidence, evidence)
  }
})

test('host-lost: back to what the facts say once the host answers (no hostLost fact)', () => {
  const f: ActivityFacts = { createdAt: CREATED, alive, phase: phase('working', CREATED + 11) }
  assert.is(deriveActivity({ ...f, hostLost }, CREATED + 1000).value, 'host-lost')
  assert.is(deriveActivity(f, CREATED + 1000).value, 'working')
})

test('hostLostEvidence: the host, when it was last heard, for how long, and why its link is down when known', () => {
  const table: [Parameters<typeof hostLostEvidence>[0], Evidence][] = [
    [
      { host: 'a', lastHeardAt: 1_000, now: 32_400 },
      { source: 'host a', at: 1_000, detail: 'no answer for 31 s' },
    ],
    [
      { host: 'b', lastHeardAt: 1_000, now: 61_000, problem: 'ssh: connect to host b port 22: Connection timed out' },
      {
        source: 'host b',
        at: 1_000,
        detail: 'no answer for 60 s; ssh: connect to host b port 22: Connection timed out',
      },
    ],
    [
      { host: 'a', lastHeardAt: 5_000, now: 4_000 },
      { source: 'host a', at: 5_000, detail: 'no answer for 0 s' },
    ],
  ]
  for (const [f, want] of table) assert.equal(hostLostEvidence(f), want)
})

test('hasEnded: stopped and failed-to-start; every other activity is live', () => {
  const expected: Record<Activity, boolean> = {
    'failed-to-start': true,
    'host-lost': false,
    'needs-you': false,
    working: false,
    idle: false,
    starting: false,
    stopped: true,
  }
  for (const a of ACTIVITIES) assert.is(hasEnded(a), expected[a], a)
})

// SPEC.md 3 related rules: the judge that takes no message (and 4.2), and which lanes have git facts read.
const lane = (role: Role) => ({ run: 'r1', key: 'k', role, dir: 'd', root: '/lanes', iteration: 2 })
const rec = (extra: Partial<ConversationRecord> = {}): ConversationRecord => ({
  id: '7',
  name: 'r1-k-critic-i2',
  createdAt: 1,
  harness: 'claude',
  cwd: '/lanes/d',
  ...extra,
})

test('takesMessages: a critic or verifier with its done report takes none; everyone else does', () => {
  const done = [{ status: 'done' as const }]
  const rows: [string, Role | undefined, { status: 'done' | 'blocked' | 'failed' }[], boolean][] = [
    ['critic, done', 'critic', done, false],
    ['verifier, done', 'verifier', done, false],
    ['critic, only blocked', 'critic', [{ status: 'blocked' }], true],
    ['critic, no report', 'critic', [], true],
    ['builder, done', 'builder', done, true],
    ['orchestrator, done', 'orchestrator', done, true],
    ['a root conversation', undefined, done, true],
  ]
  for (const [name, role, reports, ok] of rows)
    assert.is(takesMessages(rec(role ? { lane: lane(role) } : {}), reports).ok, ok, name)
  assert.equal(takesMessages(rec({ lane: lane('critic') }), done), {
    ok: false,
    code: 'conflict',
    message: 'conv 7 (r1-k-critic-i2) is a critic that has filed its done report; it takes no further messages',
    hint: 'pass --force to send it anyway',
  })
})

test('readsGitFacts (SPEC.md 3): git-backed lanes that are not archived (nor reaped)', () => {
  const rows: [string, Parameters<typeof readsGitFacts>[0], boolean][] = [
    ['builder', { lane: { role: 'builder' } }, true],
    ['critic', { lane: { role: 'critic' } }, true],
    ['play', { lane: { role: 'play' } }, false],
    ['archived builder', { lane: { role: 'builder' }, archived: { at: 1 } }, false],
    ['reaped builder', { lane: { role: 'builder' }, reaped: 1 }, false],
  ]
  for (const [name, l, want] of rows) assert.is(readsGitFacts(l), want, name)
})

test('gitFactsFrom: the worktree here, the host runner for a lane on a host, none where SPEC.md 3 reads none', () => {
  const rows: [string, Parameters<typeof gitFactsFrom>[0], ReturnType<typeof gitFactsFrom>][] = [
    ['builder here', { lane: { role: 'builder' } }, 'worktree'],
    ['builder on a host', { lane: { role: 'builder', host: 'a' } }, 'host'],
    ['critic on a host', { lane: { role: 'critic', host: 'b' } }, 'host'],
    ['play on a host', { lane: { role: 'play', host: 'a' } }, undefined],
    ['archived builder on a host', { lane: { role: 'builder', host: 'a' }, archived: { at: 1 } }, undefined],
    ['reaped builder on a host', { lane: { role: 'builder', host: 'a' }, reaped: 1 }, undefined],
  ]
  for (const [name, l, want] of rows) assert.is(gitFactsFrom(l), want, name)
})

test.run()

test('turnEndedWithoutReport: idle after a turn that ended with no report filed since it began; nothing else', () => {
  const idle = { value: 'idle' as const, evidence: ev('stream: result', CREATED + 50) }
  const turn = { started: CREATED + 10, ended: CREATED + 50 }
  const rows: [string, Parameters<typeof turnEndedWithoutReport>, boolean][] = [
    ['turn over, no report', [idle, turn, []], true],
    ['turn over, a report from an earlier turn', [idle, turn, [{ at: CREATED + 5 }]], true],
    ['turn over, a report in it', [idle, turn, [{ at: CREATED + 20 }]], false],
    ['turn still open', [idle, { started: CREATED + 10 }, []], false],
    ['no turn known (no runner: a mark, a human shell)', [idle, undefined, []], false],
    ['working', [{ ...idle, value: 'working' }, turn, []], false],
    ['needs-you: something is pending', [{ ...idle, value: 'needs-you', reason: 'permission' }, turn, []], false],
    ['stopped', [{ ...idle, value: 'stopped' }, turn, []], false],
  ]
  for (const [name, args, want] of rows) assert.is(turnEndedWithoutReport(...args), want, name)
})
