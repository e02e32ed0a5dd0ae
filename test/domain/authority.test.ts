import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mayAdminister, mayCommand, PERSON, type Caller } from '../../kernel/domain/authority.js'
import type { Decision } from '../../kernel/domain/refusal.js'

// A root (1) launched an orchestrator (2) and a builder (5); the orchestrator launched builders 3 and 4, then handed
// off to 6 (a successor of 2); 6 launched builder 7. A second root (8) launched builder 9.
const rows: Record<string, { id: string; parent?: string; successor?: 'handoff'; lane?: never }> = {
  '1': { id: '1' },
  '2': { id: '2', parent: '1' },
  '3': { id: '3', parent: '2' },
  '4': { id: '4', parent: '2' },
  '5': { id: '5', parent: '1' },
  '6': { id: '6', parent: '2', successor: 'handoff' },
  '7': { id: '7', parent: '6' },
  '8': { id: '8' },
  '9': { id: '9', parent: '8' },
}
const lookup = (id: string) => rows[id]
const conv = (id: string): Caller => ({ kind: 'conversation', id })
const what = 'svc lane stop'
const ok: Decision = { ok: true }
const refused = (caller: string, target: string): Decision => ({
  ok: false,
  code: 'forbidden',
  message: `refused: ${what}: conv ${caller} is not in the launcher chain of conv ${target}`,
  hint: `only the person or the conversations that launched conv ${target} may do this`,
})

test('stop, reap, tell and answer belong to the person and the launcher chain; a sibling is refused', () => {
  const cases: [string, Caller, string, Decision][] = [
    ['the person stops any lane', PERSON, '3', ok],
    ['the orchestrator stops its builder', conv('2'), '3', ok],
    ["the root stops its orchestrator's builder", conv('1'), '3', ok],
    ['a lane acts on itself', conv('3'), '3', ok],
    ['a sibling builder', conv('4'), '3', refused('4', '3')],
    ['a builder on its orchestrator', conv('3'), '2', refused('3', '2')],
    ["a cousin under the root's other lane", conv('5'), '3', refused('5', '3')],
    ["the orchestrator's successor keeps its standing", conv('6'), '3', ok],
    ["the successor's own builder", conv('6'), '7', ok],
    ['another root', conv('8'), '3', refused('8', '3')],
    ["another root's builder", conv('9'), '5', refused('9', '5')],
  ]
  for (const [name, caller, target, want] of cases)
    assert.equal(mayCommand({ what, target, caller, lookup }), want, name)
})

// A root (1) with a successor (2); an orchestrator lane (3) of the root, handed off to 4; a builder (5) and a worker
// (6) of the orchestrator; a successor (7) whose parent is gone.
const lanes: Record<string, any> = {
  '1': { id: '1' },
  '2': { id: '2', parent: '1', successor: 'handoff' },
  '3': { id: '3', parent: '1', lane: { role: 'orchestrator' } },
  '4': { id: '4', parent: '3', successor: 'handoff' },
  '5': { id: '5', parent: '3', lane: { role: 'builder' } },
  '6': { id: '6', parent: '3', worker: { issue: 'local:1' } },
  '7': { id: '7', parent: '99', successor: 'fork' },
}
const forbidden = (caller: string, is: string): Decision => ({
  ok: false,
  code: 'forbidden',
  message: `refused: svc host add: conv ${caller} ${is}; only the person or a root conversation may do this`,
  hint: 'run it from your own shell, outside any lane',
})

test('the service itself and its hosts are the person’s and a root conversation’s; no lane’s or worker’s', () => {
  const cases: [string, Caller, Decision][] = [
    ['the person', PERSON, ok],
    ['a root conversation', conv('1'), ok],
    ["a root's successor", conv('2'), ok],
    ['an orchestrator lane', conv('3'), forbidden('3', 'is an orchestrator lane')],
    ["an orchestrator's successor", conv('4'), forbidden('4', 'continues conv 3, an orchestrator lane')],
    ['a builder lane', conv('5'), forbidden('5', 'is a builder lane')],
    ['a worker', conv('6'), forbidden('6', 'is a worker')],
    ['a broken chain', conv('7'), forbidden('7', 'has a broken chain of parent links')],
  ]
  for (const [name, caller, want] of cases)
    assert.equal(mayAdminister({ what: 'svc host add', caller, lookup: (id) => lanes[id] }), want, name)
})

test.run()
