import { test } from 'uvu'
import * as assert from 'uvu/assert'
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
  laneOf,
  newestLane,
  newestVerdict,
} from '../../kernel/domain/lane.js'
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
    [
      'a worker',
      { ...base, worker: { issue: 'local:1', starter: '2', dir: 'd', root: '/lanes', iteration: 1 } },
      false,
    ],
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
    assert.equal(
      [...xs].sort(byCreation).map((x) => x.id),
      order,
      name,
    )
    assert.is([...xs].sort(byCreation).at(-1)?.id, newest, `${name}: the last of the creation order is the newest`)
  }
})

test('hasDoneReport and newestVerdict', () => {
  const r = (seq: number, at: number, extra: Partial<Report> = {}): Report => ({
    seq,
    at,
    status: 'blocked',
    body: 'b',
    ...extra,
  })
  const rows: [string, Report[], boolean, number | undefined][] = [
    ['none', [], false, undefined],
    ['blocked and failed only', [r(1, 1), r(2, 2, { status: 'failed' })], false, undefined],
    ['a done report without a verdict', [r(1, 1, { status: 'done' })], true, undefined],
    [
      'the newest verdict by time, not the last filed',
      [r(1, 5, { verdict: 'NOT_YET' }), r(2, 3, { verdict: 'WOWED', status: 'done' })],
      true,
      1,
    ],
    [
      'a later report without a verdict does not hide one',
      [r(1, 1, { verdict: 'PASS', status: 'done' }), r(2, 2)],
      true,
      1,
    ],
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

test('laneOf: a conversation that is not a lane is refused as not_found (show, wait and stop once said usage)', () => {
  const laneRec: ConversationRecord = {
    id: '7',
    name: 'r1-k-builder-i2',
    createdAt: 1,
    harness: 'claude',
    cwd: '/lanes/d',
    lane: laneFacts('builder'),
  }
  assert.equal(laneOf(laneRec), { ok: true, rec: laneRec })
  assert.equal(laneOf({ ...laneRec, id: '3', name: 'c3', lane: undefined }), {
    ok: false,
    code: 'not_found',
    message: 'conv 3 (c3) is not a lane',
  })
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
