import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { takesMessages, readsGitFacts } from '../../kernel/domain/activity.js'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import { laneOf } from '../../kernel/domain/lane.js'
import type { Role } from '../../kernel/domain/keys.js'
import { showLine, startLine, stopLine } from '../../kernel/domain/list-show.js'

// The lines the lane verbs print (SPEC.md 4.1 start, show, stop), 'is not a lane' with one code wherever it is met,
// the judge that takes no message (SPEC.md 3, 4.2) and which lanes have git facts read (SPEC.md 3).

const lane = (role: Role) => ({ run: 'r1', key: 'k', role, dir: 'd', root: '/lanes', iteration: 2 })
const rec = (extra: Partial<ConversationRecord> = {}): ConversationRecord => ({ id: '7', name: 'r1-k-critic-i2', createdAt: 1, harness: 'claude', cwd: '/lanes/d', ...extra })
const facts = { id: '7', name: 'r1-k-critic-i2', run: 'r1', key: 'k', role: 'critic', iteration: 2 }

test('startLine, stopLine, showLine: the SPEC.md 4.1 forms word for word', () => {
  assert.is(startLine(facts, '/lanes/d'), 'Lane r1/k critic i2: conv 7 (r1-k-critic-i2) in /lanes/d')
  assert.is(stopLine(facts), 'Lane r1/k critic i2 stopped: conv 7 (r1-k-critic-i2)')
  const rows: [string, Parameters<typeof showLine>[0], string][] = [
    ['with a verdict and its file', { ...facts, activity: 'idle', archived: false, verdict: { value: 'NOT_YET', defects: 2, by: '7', file: '/v.json', stale: false } }, '#7 critic i2 idle NOT_YET /v.json'],
    ['no verdict', { ...facts, activity: 'working', archived: false }, '#7 critic i2 working - -'],
    ['archived shows archived', { ...facts, activity: 'stopped', archived: true, verdict: { value: 'PASS', defects: 0, by: '7', stale: false } }, '#7 critic i2 archived PASS -'],
  ]
  for (const [name, v, want] of rows) assert.is(showLine(v), want, name)
})

test("laneOf: a conversation that is not a lane is refused as not_found (show, wait and stop once said usage)", () => {
  const laneRec = rec({ lane: lane('builder') })
  assert.equal(laneOf(laneRec), { ok: true, rec: laneRec })
  assert.equal(laneOf(rec({ id: '3', name: 'c3' })), { ok: false, code: 'not_found', message: 'conv 3 (c3) is not a lane' })
})

test('takesMessages: a critic or verifier with its done report takes none; everyone else does', () => {
  const done = [{ status: 'done' as const }]
  const rows: [string, Role | undefined, { status: 'done' | 'blocked' | 'failed' }[], boolean][] = [
    ['critic, done', 'critic', done, false],
    ['verifier, done', 'verifier', done, false],
    ['critic, only blocked', 'critic', [{ status: 'blocked' }], true],
    ['critic, no report', 'critic', [], true],
    ['builder, done', 'builder', done, true],
    ['orchestrator, done', 'orchestrator', done, true],
    ['a root conversation', undefined, done, true],
  ]
  for (const [name, role, reports, ok] of rows) assert.is(takesMessages(rec(role ? { lane: lane(role) } : {}), reports).ok, ok, name)
  assert.equal(takesMessages(rec({ lane: lane('critic') }), done), {
    ok: false,
    code: 'conflict',
    message: 'conv 7 (r1-k-critic-i2) is a critic that has filed its done report; it takes no further messages',
    hint: 'pass --force to send it anyway',
  })
})

test('readsGitFacts (SPEC.md 3): git-backed lanes that are not archived (nor reaped)', () => {
  const rows: [string, Parameters<typeof readsGitFacts>[0], boolean][] = [
    ['builder', { lane: { role: 'builder' } }, true],
    ['critic', { lane: { role: 'critic' } }, true],
    ['play', { lane: { role: 'play' } }, false],
    ['archived builder', { lane: { role: 'builder' }, archived: { at: 1 } }, false],
    ['reaped builder', { lane: { role: 'builder' }, reaped: 1 }, false],
  ]
  for (const [name, l, want] of rows) assert.is(readsGitFacts(l), want, name)
})

test.run()
