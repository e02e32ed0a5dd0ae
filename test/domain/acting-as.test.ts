import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mayActAs, type ActAsFacts } from '../../kernel/domain/acting-as.js'
import type { Decision } from '../../kernel/domain/refusal.js'

const what = 'svc lane report'
const ok: Decision = { ok: true }
const noKey = (id: string): Decision => ({
  ok: false,
  code: 'forbidden',
  message: `refused: ${what}: conv ${id} acts only with its key, and none was given`,
  hint: `run this inside conv ${id}, where SERVICE_CONVERSATION_KEY is set`,
})
const otherKey = (owner: string, id: string): Decision => ({
  ok: false,
  code: 'forbidden',
  message: `refused: ${what}: the key given is conv ${owner}'s, not conv ${id}'s`,
  hint: 'a conversation acts only as itself: SERVICE_CONVERSATION must name the conversation its key was given to',
})
const unknownKey: Decision = {
  ok: false,
  code: 'forbidden',
  message: `refused: ${what}: SERVICE_CONVERSATION_KEY is the key of no conversation`,
  hint: 'unset SERVICE_CONVERSATION_KEY, or run this inside the conversation it was given to',
}

test('who may act as whom, given the conversation named, whether it has a key, and whose key came with the request', () => {
  const cases: [string, Omit<ActAsFacts, 'what'>, Decision][] = [
    ['a keyed conversation with its own key', { named: { id: '7', hasKey: true }, keyOf: '7' }, ok],
    [
      'a keyed conversation named, no key given (a builder naming its critic)',
      { named: { id: '7', hasKey: true } },
      noKey('7'),
    ],
    [
      "a keyed conversation named with another's key",
      { named: { id: '7', hasKey: true }, keyOf: '9' },
      otherKey('9', '7'),
    ],
    ['a keyless root (harness none) by its id alone', { named: { id: '1', hasKey: false } }, ok],
    [
      "a keyless root named with a lane's key (the lane acting as the root)",
      { named: { id: '1', hasKey: false }, keyOf: '9' },
      otherKey('9', '1'),
    ],
    ['a key that belongs to no conversation', { named: { id: '1', hasKey: false }, keyOf: null }, unknownKey],
    [
      'a key that belongs to no conversation, naming a keyed one',
      { named: { id: '7', hasKey: true }, keyOf: null },
      unknownKey,
    ],
    ['no conversation named, no key (a human telling)', {}, ok],
    ['no conversation named, a key of a conversation (acts as no one)', { keyOf: '9' }, ok],
  ]
  for (const [name, facts, want] of cases) assert.equal(mayActAs({ what, ...facts }), want, name)
})

test.run()
