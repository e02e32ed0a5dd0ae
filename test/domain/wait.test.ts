import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Activity } from '../../kernel/domain/activity.js'
import { reportExitCode } from '../../kernel/domain/report-rules.js'
import { ALLOWED, allow, refuse, type Decision } from '../../kernel/domain/refusal.js'
import {
  IDLE_LIMIT_MS,
  WAIT_EXIT,
  afterCursor,
  afterSeq,
  compareCursor,
  formatCursor,
  isAfter,
  oneWaitForm,
  parseCursor,
  nextStep,
  pickNext,
  shellWord,
  type Cursor,
  type WaitMember,
} from '../../kernel/domain/wait.js'
import type { Report } from '../../kernel/domain/report.js'

// SPEC.md 4.1 wait (its exit codes and the run cursor `<atMs>.<name>.<seq>`) and section 8: the next report after the
// cursor, oldest first; exit 2 when every lane exited, or the live ones stayed idle for the limit with no report; else
// keep waiting.

const NOW = 1_000_000_000
const member = (name: string, value: Activity, since: number, reports: Partial<Report>[] = []): WaitMember => ({
  name,
  activity: { value, evidence: { source: value === 'idle' ? 'error' : 'stream', at: since } },
  reports: reports.map((r, i) => ({ seq: i + 1, at: 0, status: 'done', body: 'b', ...r }) as Report),
})

test('pickNext: a row per case of the wait rules', () => {
  const CASES: [string, WaitMember[], number | undefined, string][] = [
    ['no lanes at all', [], undefined, 'exited: run r1 has no lanes'],
    [
      'the oldest report after the cursor wins',
      [member('b', 'working', NOW, [{ at: 20 }]), member('a', 'working', NOW, [{ at: 10 }, { at: 30 }])],
      undefined,
      'report a 1',
    ],
    ['working: keep waiting', [member('a', 'working', NOW - IDLE_LIMIT_MS * 2)], undefined, 'pending'],
    ['idle under the limit: keep waiting', [member('a', 'idle', NOW - IDLE_LIMIT_MS + 1)], undefined, 'pending'],
    [
      'idle for 10 minutes with no report: exit 2',
      [member('a', 'idle', NOW - IDLE_LIMIT_MS)],
      undefined,
      'idle: run r1 stayed idle for 10 minutes with no report',
    ],
    [
      'one lane idle, another working: keep waiting',
      [member('a', 'idle', 0), member('b', 'working', NOW)],
      undefined,
      'pending',
    ],
    [
      'idle and stopped: the live one decides',
      [member('a', 'idle', 0), member('b', 'stopped', 0)],
      undefined,
      'idle: run r1 stayed idle for 10 minutes with no report',
    ],
    [
      'a shortened limit (a test build) reads in seconds',
      [member('a', 'idle', NOW - 2000)],
      2000,
      'idle: run r1 stayed idle for 2 s with no report',
    ],
    [
      'every lane stopped',
      [member('a', 'stopped', 0), member('b', 'failed-to-start', 0)],
      undefined,
      'exited: every lane of run r1 has exited with no further report',
    ],
  ]
  for (const [name, members, limit, want] of CASES) {
    const p = pickNext(members, undefined, NOW, 'run r1', limit)
    const got =
      p.kind === 'report'
        ? `report ${p.member.name} ${p.report.seq}`
        : p.kind === 'pending'
          ? 'pending'
          : `${p.kind}: ${p.detail}`
    assert.is(got, want, name)
  }
})

test('pickNext: a set of workers is named so: no workers, every worker exited', () => {
  const none = pickNext([], undefined, NOW, 'issue local:3', IDLE_LIMIT_MS, 'worker')
  assert.equal(none, { kind: 'exited', detail: 'issue local:3 has no workers', next: [] })
  const gone = pickNext(
    [member('a', 'stopped', 0), member('b', 'stopped', 0)],
    undefined,
    NOW,
    'issue local:3',
    IDLE_LIMIT_MS,
    'worker',
  )
  assert.equal(gone, {
    kind: 'exited',
    detail: 'every worker of issue local:3 has exited with no further report',
    next: [],
  })
})

test('pickNext: more rows of the wait rules (one lane, the cursor, live activities)', () => {
  const after: Cursor = { at: 10, name: 'a', seq: 1 }
  const CASES: [string, WaitMember[], Cursor | undefined, string][] = [
    [
      'one lane exited with no report: exit 2, naming its activity',
      [member('a', 'stopped', 0)],
      undefined,
      'exited: run r1 exited (stopped: stream) with no report',
    ],
    [
      'a report at or before the cursor is not returned again',
      [member('a', 'stopped', 0, [{ at: 10 }])],
      after,
      'exited: run r1 exited (stopped: stream) with no report',
    ],
    ['the next report after the cursor', [member('a', 'working', NOW, [{ at: 10 }, { at: 10 }])], after, 'report a 2'],
    [
      'same time: the name orders',
      [member('b', 'working', NOW, [{ at: 10 }]), member('a', 'working', NOW, [{ at: 10 }, { at: 10 }])],
      after,
      'report a 2',
    ],
    ['starting: keep waiting', [member('a', 'starting', 0)], undefined, 'pending'],
    ['needs-you: keep waiting, however long', [member('a', 'needs-you', 0)], undefined, 'pending'],
  ]
  for (const [name, members, cursor, want] of CASES) {
    const p = pickNext(members, cursor, NOW, 'run r1')
    const got =
      p.kind === 'report'
        ? `report ${p.member.name} ${p.report.seq}`
        : p.kind === 'pending'
          ? 'pending'
          : `${p.kind}: ${p.detail}`
    assert.is(got, want, name)
  }
})

const place = { kind: 'lane' as const, run: 'r1', key: 'b', role: 'builder', judges: false }
const turnOver = (name: string, source = 'stream: result', detail?: string): WaitMember => ({
  ...member(name, 'idle', NOW - 1),
  activity: { value: 'idle', evidence: { source, at: NOW - 1, ...(detail ? { detail } : {}) } },
  noReport: true,
  place,
})

test('pickNext: a harness whose turn ended with no report and nothing pending has, for the wait, exited: exit 2 at once', () => {
  const CASES: [string, WaitMember[], string][] = [
    ['one lane, its turn over', [turnOver('a')], 'exited: run r1 ended its turn with no report (idle: stream: result)'],
    [
      'one lane, its turn failed after work',
      [turnOver('a', 'error', 'API Error: 529 overloaded')],
      'exited: run r1 ended its turn with no report (idle (error: API Error: 529 overloaded))',
    ],
    [
      'a turn over and a lane stopped',
      [turnOver('a'), member('b', 'stopped', 0)],
      'exited: every lane of run r1 has exited or ended its turn with no further report',
    ],
    ['a turn over, another lane still working: keep waiting', [turnOver('a'), member('b', 'working', NOW)], 'pending'],
    [
      'a turn over, another idle past the limit',
      [turnOver('a'), member('b', 'idle', 0)],
      'idle: run r1 stayed idle for 10 minutes with no report',
    ],
  ]
  for (const [name, members, want] of CASES) {
    const p = pickNext(members, undefined, NOW, 'run r1')
    assert.is(p.kind === 'pending' ? 'pending' : p.kind === 'report' ? 'report' : `${p.kind}: ${p.detail}`, want, name)
  }
})

test('nextStep: a message to a harness that waits, a respawn with its brief for one that ended unreported, nothing after a report', () => {
  const brief = '/home/u/.service/agents/conv-r1-b-builder-i1/lane-brief.md'
  const ended = (value: Activity, extra: Partial<WaitMember> = {}): WaitMember => ({
    ...member('r1-b-builder-i1', value, 0),
    place,
    brief,
    ...extra,
  })
  const CASES: [string, WaitMember, string | undefined][] = [
    [
      'turn over: tell it to go on and report',
      turnOver('r1-b-builder-i1'),
      "svc tell conv-r1-b-builder-i1 'Your turn ended without a report. Go on with the brief, then file your report " +
        "with svc lane report.'",
    ],
    [
      'turn failed: tell it so',
      turnOver('r1-b-builder-i1', 'error', 'x'),
      "svc tell conv-r1-b-builder-i1 'Your last turn ended with an error and no report. Go on with the brief, then " +
        "file your report with svc lane report.'",
    ],
    [
      'a builder that failed to start: respawn in its directory with its brief',
      ended('failed-to-start'),
      `svc lane start --run r1 --key b --role builder --reuse --brief ${brief}`,
    ],
    [
      'a critic is named by the builder it judges',
      ended('stopped', { place: { ...place, role: 'critic', judges: true } }),
      `svc lane start --run r1 --for b --role critic --reuse --brief ${brief}`,
    ],
    [
      'a worker: run again on its issue',
      ended('stopped', { place: { kind: 'worker', issue: 'local:3' }, brief: '/h/my brief.md' }),
      "svc worker run local:3 --reuse --brief '/h/my brief.md'",
    ],
    ['stopped after a report (before the cursor): nothing to do', ended('stopped', { filedAny: true }), undefined],
  ]
  for (const [name, m, want] of CASES) assert.is(nextStep(m), want, name)
  const p = pickNext([turnOver('r1-b-builder-i1')], undefined, NOW, 'lane r1/b builder i1')
  assert.equal(p.kind !== 'report' && p.kind !== 'pending' ? p.next : [], [nextStep(turnOver('r1-b-builder-i1'))])
})

test('shellWord: plain words stay bare; anything else single-quoted, a quote inside escaped', () => {
  assert.is(shellWord('conv-r1-b'), 'conv-r1-b')
  assert.is(shellWord("it's here"), `'it'\\''s here'`)
})

test('exit codes for wait and report (SPEC.md 4.1): 0 done, 4 blocked or failed, 2 no report, 3 timeout; idle limit 10 minutes', () => {
  const rows: [string, number, number][] = [
    ['done', reportExitCode('done'), 0],
    ['blocked', reportExitCode('blocked'), 4],
    ['failed', reportExitCode('failed'), 4],
    ['exited or idle with no report', WAIT_EXIT.noReport, 2],
    ['timeout', WAIT_EXIT.timeout, 3],
  ]
  for (const [name, got, want] of rows) assert.is(got, want, name)
  assert.is(IDLE_LIMIT_MS, 10 * 60 * 1000, 'SPEC.md 8: 10 minutes')
})

// The run cursor.
test('formatCursor writes <atMs>.<name>.<seq>', () => {
  assert.is(formatCursor({ at: 1700000000123, name: 'alpha', seq: 3 }), '1700000000123.alpha.3')
  assert.is(formatCursor({ at: 0, name: 'x', seq: 0 }), '0.x.0')
})

test('parseCursor reads a simple cursor', () => {
  assert.equal(parseCursor('1700000000123.alpha.3'), { at: 1700000000123, name: 'alpha', seq: 3 })
})

test('round trip, including names that hold dots', () => {
  const cursors: Cursor[] = [
    { at: 1700000000123, name: 'alpha', seq: 1 },
    { at: 1, name: 'a.b', seq: 2 },
    { at: 1700000000123, name: 'r1-builder.i2.x', seq: 42 },
    { at: 5, name: 'a..b', seq: 7 },
    { at: 9999, name: '12', seq: 999999999 },
    { at: 1700000000123, name: 'x_y-z', seq: 0 },
  ]
  for (const c of cursors) {
    const text = formatCursor(c)
    assert.equal(parseCursor(text), c, text)
    assert.is(formatCursor(parseCursor(text)!), text)
  }
})

test('a dotted name: time before the first dot, sequence after the last', () => {
  assert.equal(parseCursor('10.a.b.c.4'), { at: 10, name: 'a.b.c', seq: 4 })
  assert.equal(parseCursor('10.5.6'), { at: 10, name: '5', seq: 6 })
})

test('malformed cursors are rejected', () => {
  const bad = [
    '',
    '.',
    '..',
    'abc',
    '123',
    '1.2', // no name
    '1..2', // empty name
    '.a.1', // no time
    '1.a.', // no sequence
    'x.a.1', // time not a number
    '1.a.x', // sequence not a number
    '-1.a.1',
    '1.a.-1',
    '1e3.a.1',
    '1.5.a.1x',
    ' 1.a.1',
    '1.a.1 ',
    '1.a.1\n',
    '0x10.a.1',
    '1.a.1.5e', // sequence must be digits
    '12345678901234567.a.1', // 17-digit time
    '1.a.1234567890', // 10-digit sequence
  ]
  for (const b of bad) assert.is(parseCursor(b), undefined, JSON.stringify(b))
})

test('compareCursor orders by time, then name, then sequence', () => {
  const a: Cursor = { at: 100, name: 'b', seq: 5 }
  assert.ok(compareCursor({ at: 99, name: 'z', seq: 9 }, a) < 0)
  assert.ok(compareCursor({ at: 101, name: 'a', seq: 1 }, a) > 0)
  assert.ok(compareCursor({ at: 100, name: 'a', seq: 9 }, a) < 0)
  assert.ok(compareCursor({ at: 100, name: 'c', seq: 1 }, a) > 0)
  assert.ok(compareCursor({ at: 100, name: 'b', seq: 4 }, a) < 0)
  assert.ok(compareCursor({ at: 100, name: 'b', seq: 6 }, a) > 0)
  assert.is(compareCursor({ at: 100, name: 'b', seq: 5 }, a), 0)
})

test('compareCursor is a total order usable for sorting (antisymmetric)', () => {
  const list: Cursor[] = [
    { at: 3, name: 'b', seq: 1 },
    { at: 1, name: 'z', seq: 2 },
    { at: 3, name: 'a', seq: 9 },
    { at: 3, name: 'a', seq: 2 },
    { at: 2, name: 'a.b', seq: 1 },
    { at: 2, name: 'a', seq: 1 },
  ]
  const sorted = [...list].sort(compareCursor).map(formatCursor)
  assert.equal(sorted, ['1.z.2', '2.a.1', '2.a.b.1', '3.a.2', '3.a.9', '3.b.1'])
  for (const x of list)
    for (const y of list) assert.is(Math.sign(compareCursor(x, y)), -Math.sign(compareCursor(y, x)) || 0)
})

test('sequence compares numerically, not as text', () => {
  assert.ok(compareCursor({ at: 1, name: 'a', seq: 10 }, { at: 1, name: 'a', seq: 9 }) > 0)
  assert.ok(compareCursor({ at: 10, name: 'a', seq: 1 }, { at: 9, name: 'a', seq: 1 }) > 0)
})

test('isAfter: everything is after no cursor; strictly after otherwise', () => {
  const c: Cursor = { at: 100, name: 'b', seq: 5 }
  assert.ok(isAfter(c, undefined))
  assert.not.ok(isAfter(c, { ...c }))
  assert.ok(isAfter(c, { at: 99, name: 'b', seq: 5 }))
  assert.ok(isAfter(c, { at: 100, name: 'a', seq: 5 }))
  assert.ok(isAfter(c, { at: 100, name: 'b', seq: 4 }))
  assert.not.ok(isAfter(c, { at: 101, name: 'a', seq: 1 }))
  assert.not.ok(isAfter(c, { at: 100, name: 'b', seq: 6 }))
})

test('isAfter over parsed cursors filters a report list oldest-first', () => {
  const reports = ['5.a.1', '5.b.1', '6.a.2', '7.c.1'].map((t) => parseCursor(t)!)
  const after = parseCursor('5.b.1')
  assert.equal(reports.filter((r) => isAfter(r, after)).map(formatCursor), ['6.a.2', '7.c.1'])
})

// The argument forms of wait (lane and worker alike): each row a request's arguments and the exact decision.
const LANE_FORMS = '<lane>, --run <key> or --parent <conv>'
const WORKER_FORMS = '<worker>, --issue <ref> or --parent <conv>'
type Unit = 'lane' | 'worker'

test('oneWaitForm: exactly one of the forms is given (an empty string counts as given)', () => {
  const CASES: [unknown[], Unit, Decision][] = [
    [['12', undefined, undefined], 'lane', ALLOWED],
    [[undefined, 'r1', undefined], 'lane', ALLOWED],
    [[undefined, undefined, ''], 'lane', ALLOWED],
    [[undefined, undefined, undefined], 'lane', refuse('usage', `wait takes exactly one of ${LANE_FORMS}`)],
    [['12', 'r1', undefined], 'lane', refuse('usage', `wait takes exactly one of ${LANE_FORMS}`)],
    [['12', 'r1', '3'], 'lane', refuse('usage', `wait takes exactly one of ${LANE_FORMS}`)],
    [[undefined, 'local:1', '3'], 'worker', refuse('usage', `wait takes exactly one of ${WORKER_FORMS}`)],
    [[undefined, undefined, undefined], 'worker', refuse('usage', `wait takes exactly one of ${WORKER_FORMS}`)],
  ]
  for (const [given, unit, want] of CASES)
    assert.equal(oneWaitForm(given, unit), want, `${unit} ${JSON.stringify(given)}`)
})

test('afterSeq: for one lane or worker --after is a sequence number of at most 9 digits; none is 0', () => {
  const CASES: [string | undefined, 'lane' | 'worker', Decision<{ seq: number }>][] = [
    [undefined, 'lane', allow({ seq: 0 })],
    ['0', 'lane', allow({ seq: 0 })],
    ['7', 'worker', allow({ seq: 7 })],
    ['999999999', 'lane', allow({ seq: 999_999_999 })],
    ['1000000000', 'lane', refuse('usage', "--after for one lane is a report sequence number, not '1000000000'")],
    ['-1', 'lane', refuse('usage', "--after for one lane is a report sequence number, not '-1'")],
    [
      '1700000000000.c1.1',
      'worker',
      refuse('usage', "--after for one worker is a report sequence number, not '1700000000000.c1.1'"),
    ],
    ['', 'lane', refuse('usage', "--after for one lane is a report sequence number, not ''")],
  ]
  for (const [after, kind, want] of CASES) assert.equal(afterSeq(after, kind), want, `${after} ${kind}`)
})

test('afterCursor: for a set --after is a cursor <atMs>.<name>.<seq>; none is from the start', () => {
  const c: Cursor = { at: 1_700_000_000_000, name: 'c1', seq: 2 }
  const CASES: [string | undefined, Decision<{ cursor: Cursor | undefined }>][] = [
    [undefined, allow({ cursor: undefined })],
    ['1700000000000.c1.2', allow({ cursor: c })],
    ['3', refuse('usage', "--after '3' is not a cursor of the form <atMs>.<name>.<seq>")],
    ['x.c1.2', refuse('usage', "--after 'x.c1.2' is not a cursor of the form <atMs>.<name>.<seq>")],
  ]
  for (const [after, want] of CASES) assert.equal(afterCursor(after), want, String(after))
})

test.run()
