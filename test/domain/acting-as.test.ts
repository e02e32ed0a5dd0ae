import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mayActAs, treeOf, type ActAsFacts } from '../../kernel/domain/acting-as.js'
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

const otherTree = (tree: string, id: string): Decision => ({
  ok: false,
  code: 'forbidden',
  message: `refused: ${what}: this process belongs to conv ${tree}, so it cannot act as conv ${id}`,
  hint: 'a conversation acts only as itself, whatever SERVICE_CONVERSATION and its key say',
})
const keyOutsideTree = (id: string): Decision => ({
  ok: false,
  code: 'forbidden',
  message: `refused: ${what}: conv ${id}'s key was given by a process outside its process tree`,
  hint: "a conversation's key acts only from the processes svc started for it, while they run",
})

test("a process in a conversation's tree acts as that one only; a key alone acts only where no tree of its own runs", () => {
  const cases: [string, Omit<ActAsFacts, 'what'>, Decision][] = [
    ['a lane acting as itself with its key', { named: { id: '7', hasKey: true }, keyOf: '7', tree: '7' }, ok],
    ['a lane that lost its key acts as itself', { named: { id: '7', hasKey: true }, tree: '7' }, ok],
    ['a lane with nothing named acts as itself', { tree: '7' }, ok],
    [
      "a lane giving a sibling's key read from /proc, naming the sibling",
      { named: { id: '9', hasKey: true, treeAlive: true }, keyOf: '9', tree: '7' },
      otherTree('7', '9'),
    ],
    [
      'a lane naming a keyless root without a key',
      { named: { id: '1', hasKey: false }, tree: '7' },
      otherTree('7', '1'),
    ],
    ["a lane giving a sibling's key, nothing named", { keyOf: '9', tree: '7' }, otherKey('9', '7')],
    [
      "a process outside every tree with a running lane's key",
      { named: { id: '9', hasKey: true, treeAlive: true }, keyOf: '9' },
      keyOutsideTree('9'),
    ],
    [
      'a process outside every tree with the key of a lane whose processes ended',
      { named: { id: '9', hasKey: true, treeAlive: false }, keyOf: '9' },
      ok,
    ],
    ['a keyless human shell acting as its own root', { named: { id: '1', hasKey: false } }, ok],
  ]
  for (const [name, facts, want] of cases) assert.equal(mayActAs({ what, ...facts }), want, name)
})

test('the conversation whose process tree holds a process: the nearest runner among it and its ancestors, or its group or session', () => {
  const p = (pid: number, pgid = pid, start = `${pid}`, sid = pgid) => ({ pid, start, pgid, sid })
  const runners = [
    { conv: '7', pid: 100, start: '100' },
    { conv: '9', pid: 200 }, // spawned, its start not yet published
    { conv: '4', pid: 600, start: '600', gone: true }, // killed; no process has its pid now
  ]
  const cases: [string, ReturnType<typeof p>[], string | undefined][] = [
    ['svc in a bash under runner 100', [p(150, 100), p(120, 100), p(100), p(50)], '7'],
    ['a process whose group is runner 200', [p(250, 200), p(1)], '9'],
    [
      'a runner reached through a harness in a group of its own',
      [p(300, 290, '300', 100), p(290, 290, '290', 100), p(100), p(50)],
      '7',
    ],
    ['a pid reused by another process (start differs)', [p(100, 90, 'later')], undefined],
    ["a person's shell", [p(400, 400), p(390, 390)], undefined],
    ["a fake runner under lane 7's runner: the real one is found", [p(510, 500), p(500), p(100)], '7'],
    ['no lineage (not found)', [], undefined],
    ["a process handed to init when its runner was killed, still in the runner's group", [p(650, 600)], '4'],
    ["one that then left the group, still in the runner's session", [p(660, 660, '660', 600)], '4'],
    ['and a process it started, whatever its group', [p(670, 670, '670', 670), p(660, 660, '660', 600)], '4'],
    ['a gone runner is never matched by its pid: no process has it', [p(600, 590, '600', 590)], undefined],
    [
      "a group of a gone runner's pid whose process started before that runner: not its",
      [p(610, 600, '500')],
      undefined,
    ],
  ]
  for (const [name, lineage, want] of cases) assert.is(treeOf(lineage, runners), want, name)
})

test.run()
