import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Cursor } from '../../kernel/domain/cursor.js'
import { ALLOWED, allow, refuse, type Decision } from '../../kernel/domain/refusal.js'
import { afterCursor, afterSeq, oneWaitForm, showForm } from '../../kernel/domain/verb-forms.js'

// The argument forms of wait and show: each row a request's arguments and the exact decision.

const LANE_FORMS = '<lane>, --run <key> or --parent <conv>'
const WORKER_FORMS = '<worker>, --issue <ref> or --parent <conv>'
type Unit = 'lane' | 'worker'

test('oneWaitForm: exactly one of the forms is given (an empty string counts as given)', () => {
  const CASES: [unknown[], Unit, Decision][] = [
    [['12', undefined, undefined], 'lane', ALLOWED],
    [[undefined, 'r1', undefined], 'lane', ALLOWED],
    [[undefined, undefined, ''], 'lane', ALLOWED],
    [[undefined, undefined, undefined], 'lane', refuse('usage', `wait takes exactly one of ${LANE_FORMS}`)],
    [['12', 'r1', undefined], 'lane', refuse('usage', `wait takes exactly one of ${LANE_FORMS}`)],
    [['12', 'r1', '3'], 'lane', refuse('usage', `wait takes exactly one of ${LANE_FORMS}`)],
    [[undefined, 'local:1', '3'], 'worker', refuse('usage', `wait takes exactly one of ${WORKER_FORMS}`)],
    [[undefined, undefined, undefined], 'worker', refuse('usage', `wait takes exactly one of ${WORKER_FORMS}`)],
  ]
  for (const [given, unit, want] of CASES) assert.equal(oneWaitForm(given, unit), want, `${unit} ${JSON.stringify(given)}`)
})

test('afterSeq: for one lane or worker --after is a sequence number of at most 9 digits; none is 0', () => {
  const CASES: [string | undefined, 'lane' | 'worker', Decision<{ seq: number }>][] = [
    [undefined, 'lane', allow({ seq: 0 })],
    ['0', 'lane', allow({ seq: 0 })],
    ['7', 'worker', allow({ seq: 7 })],
    ['999999999', 'lane', allow({ seq: 999_999_999 })],
    ['1000000000', 'lane', refuse('usage', "--after for one lane is a report sequence number, not '1000000000'")],
    ['-1', 'lane', refuse('usage', "--after for one lane is a report sequence number, not '-1'")],
    ['1700000000000.c1.1', 'worker', refuse('usage', "--after for one worker is a report sequence number, not '1700000000000.c1.1'")],
    ['', 'lane', refuse('usage', "--after for one lane is a report sequence number, not ''")],
  ]
  for (const [after, kind, want] of CASES) assert.equal(afterSeq(after, kind), want, `${after} ${kind}`)
})

test('afterCursor: for a set --after is a cursor <atMs>.<name>.<seq>; none is from the start', () => {
  const c: Cursor = { at: 1_700_000_000_000, name: 'c1', seq: 2 }
  const CASES: [string | undefined, Decision<{ cursor: Cursor | undefined }>][] = [
    [undefined, allow({ cursor: undefined })],
    ['1700000000000.c1.2', allow({ cursor: c })],
    ['3', refuse('usage', "--after '3' is not a cursor of the form <atMs>.<name>.<seq>")],
    ['x.c1.2', refuse('usage', "--after 'x.c1.2' is not a cursor of the form <atMs>.<name>.<seq>")],
  ]
  for (const [after, want] of CASES) assert.equal(afterCursor(after), want, String(after))
})

test('showForm: a lane, or --run with --key (keys a lane could have), not both', () => {
  const CASES: [{ lane?: string; run?: string; key?: string }, Decision<{ lane: string } | { run: string; key: string }>][] = [
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
