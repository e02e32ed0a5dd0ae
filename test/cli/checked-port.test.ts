import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { PortCall } from '../../kernel/port/client.js'
import { checkedCall } from '../helpers/checked-port.js'

const status = { pid: 7, port: 4000, version: '0.1.0', home: '/h', startedAt: 1, conversations: 0 }
const answering =
  (out: unknown): PortCall =>
  async () =>
    out as never

test('an answer that holds what its output schema says is passed through as it is', async () => {
  assert.equal(await checkedCall(answering(status))('kernelStatus', {}), status)
})

test('an answer missing a field, or with one of the wrong type, fails naming the method and the field', async () => {
  const cases: [unknown, string][] = [
    [{ ...status, pid: '7' }, 'kernelStatus answered what its output schema refuses: pid: Invalid type'],
    [{ ...status, home: undefined }, 'kernelStatus answered what its output schema refuses: home: Invalid type'],
  ]
  for (const [out, message] of cases)
    try {
      await checkedCall(answering(out))('kernelStatus', {})
      assert.unreachable('the answer was let through')
    } catch (e) {
      assert.ok((e as Error).message.startsWith(message), (e as Error).message)
    }
})

const tree = {
  roots: [{ id: '1', children: [{ id: '2', children: [] }] }],
  conversations: {},
  lanes: {},
  workers: {},
  costPerRun: {},
  costPerOrchestrator: {},
  runs: ['r1'],
  counts: {},
  chains: { r1: { b: 'i1 built' } },
  inbox: [{ id: '2', name: 'r1-b-builder-i1', since: 5, ask: { kind: 'mark' } }],
}

test("the deck's answers are held to their schemas: the tree at every depth, the inbox, a diff of either kind", async () => {
  assert.equal(await checkedCall(answering(tree))('deckTree', {}), tree)
  const diff = { base: 'origin/main', stat: '', patch: '', bytes: 0, truncated: false }
  assert.equal(await checkedCall(answering(diff))('convDiff', { conv: '2' }), diff)
  assert.equal(await checkedCall(answering({ unavailable: 'no worktree' }))('convDiff', { conv: '2' }), {
    unavailable: 'no worktree',
  })
  const cases: [unknown, 'deckTree' | 'convDiff', string][] = [
    [{ ...tree, roots: [{ id: '1', children: [{ id: '2' }] }] }, 'deckTree', 'roots.0.children.0.children'],
    [{ ...tree, inbox: [{ ...tree.inbox[0], since: undefined }] }, 'deckTree', 'inbox.0.since'],
    [{ ...tree, chains: { r1: { b: 3 } } }, 'deckTree', 'chains.r1.b'],
    [{ base: 'origin/main', stat: '' }, 'convDiff', ''],
  ]
  for (const [out, method, field] of cases)
    try {
      await checkedCall(answering(out))(method, method === 'deckTree' ? {} : { conv: '2' })
      assert.unreachable('the answer was let through')
    } catch (e) {
      const message = (e as Error).message
      assert.ok(message.startsWith(`${method} answered what its output schema refuses: ${field}`), message)
    }
})

test.run()
