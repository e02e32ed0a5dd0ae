import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ACTIVITIES, activityShown, hasEnded, type Activity } from '../../kernel/domain/activity.js'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import type { Role } from '../../kernel/domain/keys.js'
import { ALLOWED, refuse, type Decision } from '../../kernel/domain/refusal.js'
import {
  byCreation,
  chainFound,
  hasDoneReport,
  holdsItsDirectory,
  inChain,
  isLane,
  judgesIteration,
  newestLane,
  newestVerdict,
  type LaneCellsInput,
} from '../../kernel/domain/lane.js'
import { LIST_COLUMNS, laneCells } from '../../kernel/domain/list-columns.js'
import type { Report } from '../../kernel/domain/report.js'

// The lane type family's predicates: one exported function per question about a lane, each a table here.

const laneFacts = (role: Role, o: { run?: string; key?: string; for?: number } = {}) => ({
  run: o.run ?? 'r1',
  key: o.key ?? 'k',
  role,
  dir: 'd',
  root: '/lanes',
  iteration: 1,
  ...(o.for === undefined ? {} : { for: { id: '1', key: o.key ?? 'k', iteration: o.for } }),
})

test('isLane: a conversation with lane facts, and no other', () => {
  const base: ConversationRecord = { id: '1', name: 'a', createdAt: 1, harness: 'shell', cwd: '/x' }
  const rows: [string, ConversationRecord, boolean][] = [
    ['a lane', { ...base, lane: laneFacts('builder') }, true],
    ['a root conversation', base, false],
    ['a worker', { ...base, worker: { issue: 'local:1', starter: '2', dir: 'd', root: '/lanes', iteration: 1 } }, false],
    ['a successor of a lane', { ...base, parent: '3', successor: 'handoff' }, false],
  ]
  for (const [name, rec, want] of rows) assert.is(isLane(rec), want, name)
})

test('inChain: same run and same key, both', () => {
  const rows: [string, { run: string; key: string }, boolean][] = [
    ['same run and key', { run: 'r1', key: 'k' }, true],
    ['other key', { run: 'r1', key: 'k2' }, false],
    ['other run', { run: 'r2', key: 'k' }, false],
    ['a prefix is not the key', { run: 'r1', key: 'k.' }, false],
  ]
  for (const [name, lane, want] of rows) assert.is(inChain(lane, 'r1', 'k'), want, name)
})

test('judgesIteration: a critic or verifier whose judged row has that iteration', () => {
  const rows: [string, ReturnType<typeof laneFacts>, boolean][] = [
    ['critic of i2', laneFacts('critic', { for: 2 }), true],
    ['verifier of i2', laneFacts('verifier', { for: 2 }), true],
    ['critic of i1', laneFacts('critic', { for: 1 }), false],
    ['critic judging no builder', laneFacts('critic'), false],
    ['builder (never a judge)', { ...laneFacts('builder'), for: { id: '1', key: 'k', iteration: 2 } }, false],
    ['play', laneFacts('play'), false],
  ]
  for (const [name, lane, want] of rows) assert.is(judgesIteration(lane, 2), want, name)
})

test('newestLane and byCreation: by creation time; of equal times the later in the list', () => {
  const l = (id: string, createdAt: number) => ({ id, rec: { createdAt } })
  const rows: [string, ReturnType<typeof l>[], string | undefined, string[]][] = [
    ['greatest time wins, wherever it is', [l('a', 3), l('b', 9), l('c', 5)], 'b', ['a', 'c', 'b']],
    ['a tie goes to the later', [l('a', 4), l('b', 4)], 'b', ['a', 'b']],
    ['nothing of nothing', [], undefined, []],
  ]
  for (const [name, xs, newest, order] of rows) {
    assert.is(newestLane(xs)?.id, newest, name)
    assert.equal([...xs].sort(byCreation).map((x) => x.id), order, name)
    assert.is([...xs].sort(byCreation).at(-1)?.id, newest, `${name}: the last of the creation order is the newest`)
  }
})

test('hasDoneReport and newestVerdict', () => {
  const r = (seq: number, at: number, extra: Partial<Report> = {}): Report => ({ seq, at, status: 'blocked', body: 'b', ...extra })
  const rows: [string, Report[], boolean, number | undefined][] = [
    ['none', [], false, undefined],
    ['blocked and failed only', [r(1, 1), r(2, 2, { status: 'failed' })], false, undefined],
    ['a done report without a verdict', [r(1, 1, { status: 'done' })], true, undefined],
    ['the newest verdict by time, not the last filed', [r(1, 5, { verdict: 'NOT_YET' }), r(2, 3, { verdict: 'WOWED', status: 'done' })], true, 1],
    ['a later report without a verdict does not hide one', [r(1, 1, { verdict: 'PASS', status: 'done' }), r(2, 2)], true, 1],
  ]
  for (const [name, reports, done, verdictSeq] of rows) {
    assert.is(hasDoneReport(reports), done, name)
    assert.is(newestVerdict(reports)?.seq, verdictSeq, name)
  }
})

test('holdsItsDirectory: until reaped or archived', () => {
  const rows: [string, { archived?: unknown; reaped?: unknown }, boolean][] = [
    ['neither', {}, true],
    ['archived', { archived: { at: 1 } }, false],
    ['reaped', { reaped: { at: 1 } }, false],
    ['both', { archived: { at: 1 }, reaped: { at: 2 } }, false],
  ]
  for (const [name, r, want] of rows) assert.is(holdsItsDirectory(r), want, name)
})

test('hasEnded: stopped and failed-to-start; every other activity is live', () => {
  const expected: Record<Activity, boolean> = { 'failed-to-start': true, 'needs-you': false, working: false, idle: false, starting: false, stopped: true }
  for (const a of ACTIVITIES) assert.is(hasEnded(a), expected[a], a)
})

test('activityShown: an archived row shows archived, whatever its activity', () => {
  const rows: [string, { archived?: boolean; activity: string }, string][] = [
    ['live', { activity: 'working' }, 'working'],
    ['not archived', { archived: false, activity: 'stopped' }, 'stopped'],
    ['archived', { archived: true, activity: 'stopped' }, 'archived'],
  ]
  for (const [name, v, want] of rows) assert.is(activityShown(v), want, name)
})

test('laneCells: the columns of SPEC.md 4.1 list, a dash where a fact does not apply', () => {
  assert.equal([...LIST_COLUMNS], ['ID', 'RUN/KEY', 'ROLE', 'ITER', 'ACTIVITY', 'REPORT', 'FOR', 'VERDICT', 'BRANCH@SHA', 'AHEAD', 'DIRTY', 'MODEL', 'COST'])
  const base = { id: '3', run: 'r1', key: 'b', role: 'critic', iteration: 2, activity: 'idle', archived: false } satisfies LaneCellsInput
  const rows: [string, LaneCellsInput, string[]][] = [
    [
      'a critic with its verdict, a detached worktree',
      { ...base, report: { seq: 1, status: 'done', at: 1 }, for: { id: '1', key: 'b', iteration: 2 }, verdict: { value: 'NOT_YET', defects: 4, by: '3', stale: false }, git: { head: '0123456789abcdef', dirty: false, asOf: 1 }, model: 'm', cost: { usd: 1.234, estimated: true } },
      ['3', 'r1/b', 'critic', 'i2', 'idle', 'done', 'b i2', 'NOT_YET 4', '(detached)@0123456', '-', 'no', 'm', '~$1.23'],
    ],
    [
      'an archived builder: no git facts read, its recorded branch',
      { ...base, id: '2', role: 'builder', iteration: 1, activity: 'stopped', archived: true, branch: 'r1/b' },
      ['2', 'r1/b', 'builder', 'i1', 'archived', '-', '-', '-', 'r1/b@-', '-', '-', '-', '-'],
    ],
    [
      'a builder with git facts: the branch read now, ahead and dirty',
      { ...base, id: '4', role: 'builder', iteration: 1, branch: 'r1/b', git: { branch: 'r1/b', head: 'fedcba9876543210', ahead: 2, dirty: true, asOf: 1 } },
      ['4', 'r1/b', 'builder', 'i1', 'idle', '-', '-', '-', 'r1/b@fedcba9', '2', 'yes', '-', '-'],
    ],
  ]
  for (const [name, v, want] of rows) assert.equal(laneCells(v), want, name)
})

test('chainFound: show of a run and key with no lane is not_found, naming both', () => {
  const CASES: [string, string, number, Decision][] = [
    ['r1', 'k', 1, ALLOWED],
    ['r1', 'k', 3, ALLOWED],
    ['r1', 'k', 0, refuse('not_found', 'no lanes r1/k')],
  ]
  for (const [run, key, lanes, want] of CASES) assert.equal(chainFound(run, key, lanes), want, `${run}/${key} ${lanes}`)
})

test.run()
