import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { LaneCellsInput, LaneChainNow } from '../../kernel/domain/lane.js'
import { allow, refuse, type Decision } from '../../kernel/domain/refusal.js'
import {
  LIST_COLUMNS,
  activityShown,
  laneCells,
  newestReport,
  showForm,
  showLine,
  startLine,
  stopLine,
} from '../../kernel/domain/list-show.js'

// SPEC.md 4.1 list and show: the columns and their cells, what the ACTIVITY column shows, and the lines the lane
// verbs print (start, show, stop), word for word.

const facts = { id: '7', name: 'r1-k-critic-i2', run: 'r1', key: 'k', role: 'critic', iteration: 2 }

test('startLine, stopLine, showLine: the SPEC.md 4.1 forms word for word', () => {
  assert.is(startLine(facts, '/lanes/d'), 'Lane r1/k critic i2: conv 7 (r1-k-critic-i2) in /lanes/d')
  assert.is(stopLine(facts), 'Lane r1/k critic i2 stopped: conv 7 (r1-k-critic-i2)')
  const rows: [string, Parameters<typeof showLine>[0], string][] = [
    [
      'with a verdict and its file',
      {
        ...facts,
        activity: 'idle',
        archived: false,
        verdict: { value: 'NOT_YET', defects: 2, by: '7', file: '/v.json', stale: false },
      },
      '#7 critic i2 idle NOT_YET /v.json',
    ],
    ['no verdict', { ...facts, activity: 'working', archived: false }, '#7 critic i2 working - -'],
    [
      'archived shows archived',
      { ...facts, activity: 'stopped', archived: true, verdict: { value: 'PASS', defects: 0, by: '7', stale: false } },
      '#7 critic i2 archived PASS -',
    ],
  ]
  for (const [name, v, want] of rows) assert.is(showLine(v), want, name)
})

test('activityShown: an archived row shows archived, whatever its activity; needs-you its reason; a turn over idle (no report)', () => {
  const rows: [string, { archived?: boolean; activity: string; reason?: string; noReport?: boolean }, string][] = [
    ['live', { activity: 'working' }, 'working'],
    ['needs-you with its reason', { activity: 'needs-you', reason: 'permission' }, 'needs-you (permission)'],
    ['a turn ended with no report', { activity: 'idle', noReport: true }, 'idle (no report)'],
    ['archived needs no reason', { archived: true, activity: 'stopped', reason: 'plan' }, 'archived'],
    ['not archived', { archived: false, activity: 'stopped' }, 'stopped'],
    ['archived', { archived: true, activity: 'stopped' }, 'archived'],
  ]
  for (const [name, v, want] of rows) assert.is(activityShown(v), want, name)
})

test('laneCells: the columns of SPEC.md 4.1 list, a dash where a fact does not apply', () => {
  assert.equal(
    [...LIST_COLUMNS],
    [
      'ID',
      'RUN/KEY',
      'ROLE',
      'ITER',
      'ACTIVITY',
      'REPORT',
      'FOR',
      'VERDICT',
      'BRANCH@SHA',
      'AHEAD',
      'DIRTY',
      'MODEL',
      'COST',
    ],
  )
  const base = {
    id: '3',
    run: 'r1',
    key: 'b',
    role: 'critic',
    iteration: 2,
    activity: 'idle',
    archived: false,
  } satisfies LaneCellsInput
  const rows: [string, LaneCellsInput, string[]][] = [
    [
      'a critic with its verdict, a detached worktree',
      {
        ...base,
        report: { seq: 1, status: 'done', at: 1 },
        for: { id: '1', key: 'b', iteration: 2 },
        verdict: { value: 'NOT_YET', defects: 4, by: '3', stale: false },
        git: { head: '0123456789abcdef', dirty: false, asOf: 1 },
        model: 'm',
        cost: { usd: 1.234, estimated: true },
      },
      [
        '3',
        'r1/b',
        'critic',
        'i2',
        'idle',
        'done',
        'b i2',
        'NOT_YET 4',
        '(detached)@0123456',
        '-',
        'no',
        'm',
        '~$1.23',
      ],
    ],
    [
      'an archived builder: no git facts read, its recorded branch',
      { ...base, id: '2', role: 'builder', iteration: 1, activity: 'stopped', archived: true, branch: 'r1/b' },
      ['2', 'r1/b', 'builder', 'i1', 'archived', '-', '-', '-', 'r1/b@-', '-', '-', '-', '-'],
    ],
    [
      'a builder with git facts: the branch read now, ahead and dirty',
      {
        ...base,
        id: '4',
        role: 'builder',
        iteration: 1,
        branch: 'r1/b',
        git: { branch: 'r1/b', head: 'fedcba9876543210', ahead: 2, dirty: true, asOf: 1 },
      },
      ['4', 'r1/b', 'builder', 'i1', 'idle', '-', '-', '-', 'r1/b@fedcba9', '2', 'yes', '-', '-'],
    ],
  ]
  for (const [name, v, want] of rows) assert.equal(laneCells(v), want, name)
})

test('newestReport (SPEC.md 4.1 list REPORT): the last report filed, or none', () => {
  const lane = (reports: LaneChainNow['reports']) => ({ rec: {} as LaneChainNow['rec'], reports })
  assert.is(newestReport(lane([])), undefined, 'no report yet')
  assert.equal(
    newestReport(
      lane([
        { seq: 1, at: 1, status: 'blocked', body: 'x' },
        { seq: 2, at: 2, status: 'done', body: 'y' },
      ]),
    ),
    { seq: 2, at: 2, status: 'done', body: 'y' },
    'the newest',
  )
})

test('showForm: a lane, or --run with --key (keys a lane could have), not both', () => {
  const CASES: [
    { lane?: string; run?: string; key?: string },
    Decision<{ lane: string } | { run: string; key: string }>,
  ][] = [
    [{ lane: '12' }, allow({ lane: '12' })],
    [{ run: 'r1', key: 'k' }, allow({ run: 'r1', key: 'k' })],
    [{ lane: '12', run: 'r1' }, refuse('usage', 'show takes a lane, or --run with --key, not both')],
    [{ lane: '12', key: 'k' }, refuse('usage', 'show takes a lane, or --run with --key, not both')],
    [{}, refuse('usage', 'show takes a lane, or --run with --key')],
    [{ run: 'r1' }, refuse('usage', 'show takes a lane, or --run with --key')],
    [{ key: 'k' }, refuse('usage', 'show takes a lane, or --run with --key')],
    [{ run: 'R1', key: 'k' }, refuse('usage', "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$")],
    [{ run: 'r1', key: '-k' }, refuse('usage', "invalid lane key '-k': it must match ^[a-z0-9][a-z0-9._-]{0,39}$")],
  ]
  for (const [input, want] of CASES) assert.equal(showForm(input), want, JSON.stringify(input))
})

test.run()
