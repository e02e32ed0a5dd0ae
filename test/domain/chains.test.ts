import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { answeredVerdict, chainText, criticsOf, rowVerdict } from '../../kernel/domain/chains.js'
import type { LaneNow } from '../../kernel/domain/lane.js'
import type { Report } from '../../kernel/domain/report.js'
import { report, row } from '../helpers/lane-now.js'

// SPEC.md 8 "Pairing and chains", and the VERDICT column and chain of SPEC.md 4.1 list and show that read them: one
// row per case.

const judging = (builder: string, iteration: number) => ({ lane: { for: { id: builder, key: 'k', iteration } } })

test('answeredVerdict (Pairing and chains): the newest critic of iteration n - 1 created before the builder', () => {
  const critic = (id: string, iteration: number, reports: Report[] = []) =>
    row(id, 'critic', 1, { reports, lane: { for: { id: '1', key: 'k', iteration } } })
  const lanes = [
    critic('10', 1, [report(1, 11, { verdict: 'NOT_YET', verdictFile: '/v.json' })]),
    critic('20', 1),
    critic('30', 2),
    critic('40', 1),
  ]
  assert.equal(
    answeredVerdict(lanes, 'k', 1, 25),
    { id: '20', verdict: undefined, verdictFile: undefined },
    'newest created before',
  )
  assert.equal(
    answeredVerdict(lanes, 'k', 1, 15),
    { id: '10', verdict: 'NOT_YET', verdictFile: '/v.json' },
    'with its verdict',
  )
  assert.is(answeredVerdict(lanes, 'k', 1, 5), undefined, 'none created before')
  assert.is(answeredVerdict(lanes, 'other', 1, 50), undefined, 'another key')
})

// A run r1, key k: builder i1 (done at h1, its critic said NOT_YET with 2 defects, a respawn of that critic), builder
// i2 (working, judged by a verifier with no verdict yet), and lanes of another key and another run.
const b1 = row('1', 'builder', 1, { reports: [report(1, 5, { head: 'h1' })] })
const c1 = row('2', 'critic', 1, {
  ...judging('1', 1),
  reports: [report(1, 6, { verdict: 'NOT_YET', defects: 2, verdictFile: '/v1.json', judged: 'h1' })],
})
const c1again = row('3', 'critic', 1, {
  ...judging('1', 1),
  lane: { for: { id: '1', key: 'k', iteration: 1 }, dir: 'd2' },
})
const b2 = row('4', 'builder', 2)
const v2 = row('5', 'verifier', 1, judging('4', 2))
const otherKey = row('6', 'critic', 1, { key: 'j', lane: { for: { id: '9', key: 'j', iteration: 1 } } })
const otherRun = row('7', 'critic', 1, { run: 'r2', lane: { for: { id: '1', key: 'k', iteration: 1 } } })
const ALL = [b1, c1, c1again, b2, v2, otherKey, otherRun]

test('criticsOf (Pairing and chains): critic and verifier lanes of the same run and key judging iteration n; a respawn shares them', () => {
  const rows: [string, string, string, number, LaneNow[]][] = [
    ['iteration 1: the critic and its respawn', 'r1', 'k', 1, [c1, c1again]],
    ['iteration 2: a verifier', 'r1', 'k', 2, [v2]],
    ['no critic yet', 'r1', 'k', 3, []],
    ['another key', 'r1', 'j', 1, [otherKey]],
    ['another run', 'r2', 'k', 1, [otherRun]],
  ]
  for (const [name, run, key, n, want] of rows) assert.equal(criticsOf(ALL, run, key, n), want, name)
})

test("rowVerdict (SPEC.md 4.1 list VERDICT): a critic's own; a builder's newest critic verdict, stale once its branch moved", () => {
  const notYet = { value: 'NOT_YET', defects: 2, by: '2', file: '/v1.json', judged: 'h1', stale: false }
  const rows: [string, LaneNow, LaneNow[], unknown][] = [
    ['a critic: its own verdict', c1, ALL, notYet],
    ["a builder: its iteration's newest critic verdict", b1, ALL, notYet],
    [
      'a builder whose worktree moved past the judged commit',
      { ...b1, head: 'h2' },
      [{ ...b1, head: 'h2' }, c1],
      { ...notYet, stale: true },
    ],
    ['a builder whose critics filed no verdict', b2, ALL, undefined],
    ['a critic with no verdict yet', v2, ALL, undefined],
    ['a play lane shows none', row('8', 'play', 1), ALL, undefined],
  ]
  for (const [name, lane, all, want] of rows) assert.equal(rowVerdict(lane, all), want, name)
  const newer = row('9', 'verifier', 1, {
    ...judging('1', 1),
    reports: [report(1, 20, { verdict: 'PASS', defects: 0, judged: 'h1' })],
  })
  assert.equal(rowVerdict(b1, [...ALL, newer])?.value, 'PASS', 'the newest verdict by time wins')
})

test('chainText (SPEC.md 4.1 show): i<n> built → critic c<n>: <VERDICT> (<count> defects) → ...', () => {
  const rows: [string, LaneNow[], string, string][] = [
    [
      'the whole chain',
      ALL,
      'k',
      'i1 built → critic c1: NOT_YET (2 defects) → critic c1: pending → i2 building → verifier c1: pending',
    ],
    ['a builder alone', [b2], 'k', 'i2 building'],
    ['a key with no builder', ALL, 'j', ''],
  ]
  for (const [name, all, key, want] of rows) assert.is(chainText(all, 'r1', key), want, name)
})

test.run()
