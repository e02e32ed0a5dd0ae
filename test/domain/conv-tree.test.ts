import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  buildTree,
  costPerOrchestrator,
  costPerRun,
  type TreeInput,
  type TreeNode,
} from '../../kernel/domain/conv-tree.js'

// SPEC.md 1 and 8 "Pairing and chains", as the deck draws them: a lane nested under the conversation that launched
// it; a critic or verifier under the builder it judges; a handoff's successor beside its source's lanes, marked
// `continues ← #<id>`. One row per case; a tree is written as `id(children)`, top-level rows side by side.

const shape = (nodes: TreeNode[]): string =>
  nodes
    .map((n) => `${n.id}${n.continues ? `<-${n.continues}` : ''}${n.children.length ? `(${shape(n.children)})` : ''}`)
    .join(' ')

const orch = (id: string, more: Partial<TreeInput> = {}): TreeInput => ({
  id,
  lane: { role: 'orchestrator', run: 'r1' },
  ...more,
})
const lane = (id: string, role: string, parent: string | undefined, more: Partial<TreeInput> = {}): TreeInput => ({
  id,
  ...(parent ? { parent } : {}),
  lane: { role, run: 'r1' },
  ...more,
})
const judge = (id: string, role: 'critic' | 'verifier', parent: string, judged: string): TreeInput => ({
  id,
  parent,
  lane: { role, run: 'r1', for: { id: judged } },
})

const cases: [string, TreeInput[], string][] = [
  ['a lane under the conversation that launched it', [{ id: '1' }, lane('2', 'builder', '1')], '1(2)'],
  [
    'a critic under the builder it judges, not beside it',
    [{ id: '1' }, lane('2', 'builder', '1'), judge('3', 'critic', '1', '2')],
    '1(2(3))',
  ],
  ['a verifier likewise', [{ id: '1' }, lane('2', 'builder', '1'), judge('3', 'verifier', '1', '2')], '1(2(3))'],
  ['a judge whose builder is not shown: under its launcher', [{ id: '1' }, judge('3', 'critic', '1', '2')], '1(3)'],
  [
    'a builder that names a judged row is no judge: under its launcher',
    [
      { id: '1' },
      lane('2', 'builder', '1'),
      { id: '3', parent: '1', lane: { role: 'builder', run: 'r1', for: { id: '2' } } },
    ],
    '1(2 3)',
  ],
  [
    'a handoff: the lanes stay under the source, the successor beside them, continuing it',
    [
      orch('1'),
      lane('2', 'builder', '1'),
      orch('3', { parent: '1', successor: 'handoff' }),
      lane('4', 'critic', '3', { lane: { role: 'critic', run: 'r1', for: { id: '2' } } }),
    ],
    '1(2(4) 3<-1)',
  ],
  ['a fork continues its source too', [orch('1'), orch('2', { parent: '1', successor: 'fork' })], '1(2<-1)'],
  ['a successor with no source named continues nothing', [orch('2', { successor: 'handoff' })], '2'],
  ['a launcher not shown: the row at the top level', [lane('2', 'builder', '9')], '2'],
  [
    'rows in id order, numerically, at every level',
    [{ id: '10' }, { id: '9' }, lane('12', 'builder', '9'), lane('11', 'builder', '9'), lane('100', 'play', '9')],
    '9(11 12 100) 10',
  ],
  [
    'holders that loop back: each row of the loop at the top level, none hidden',
    [lane('1', 'builder', '2'), lane('2', 'builder', '1')],
    '1 2',
  ],
  [
    'a row whose holders run into a loop: at the top level too',
    [lane('1', 'builder', '2'), lane('2', 'builder', '1'), lane('3', 'play', '1')],
    '1 2 3',
  ],
  ['a row that holds itself: at the top level', [lane('1', 'builder', '1')], '1'],
  ['nothing to show', [], ''],
]

test('buildTree (SPEC.md 1, 8 Pairing and chains): each row under its holder, in id order, none lost', () => {
  for (const [what, convs, expected] of cases) {
    const tree = buildTree(convs)
    assert.is(shape(tree), expected, what)
    const ids = (nodes: TreeNode[]): string[] => nodes.flatMap((n) => [n.id, ...ids(n.children)])
    assert.equal(ids(tree).sort(), convs.map((c) => c.id).sort(), `${what}: every row shown once`)
  }
})

test('costPerRun: the cost of every lane of a run, summed; a lane with no cost counts nothing; a conversation outside runs is left out', () => {
  const convs: TreeInput[] = [
    { id: '1', cost: { usd: 5 } },
    lane('2', 'builder', '1', { cost: { usd: 1.5 } }),
    lane('3', 'critic', '1', { cost: { usd: 0.25 } }),
    lane('4', 'play', '1'),
    { id: '5', lane: { role: 'builder', run: 'r2' }, cost: { usd: 2 } },
  ]
  assert.equal(costPerRun(convs), { r1: 1.75, r2: 2 })
  assert.equal(costPerRun([]), {})
})

test('costPerOrchestrator: its own cost and everything nested below it, successors included; only orchestrators are named', () => {
  const convs: TreeInput[] = [
    orch('1', { cost: { usd: 1 } }),
    lane('2', 'builder', '1', { cost: { usd: 2 } }),
    judge('3', 'critic', '1', '2'),
    orch('4', { parent: '1', successor: 'handoff', cost: { usd: 4 } }),
    lane('5', 'play', '4', { cost: { usd: 8 } }),
    { id: '6', cost: { usd: 16 } },
    lane('7', 'builder', '6', { cost: { usd: 32 } }),
  ]
  const c3 = convs.find((c) => c.id === '3')!
  c3.cost = { usd: 0.5 }
  assert.equal(costPerOrchestrator(convs, buildTree(convs)), { '1': 1 + 2 + 0.5 + 4 + 8, '4': 4 + 8 })
})

test.run()
