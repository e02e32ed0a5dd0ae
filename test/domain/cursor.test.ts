import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { compareCursor, formatCursor, isAfter, parseCursor, type Cursor } from '../../kernel/domain/wait.js'

test('formatCursor writes <atMs>.<name>.<seq>', () => {
  assert.is(formatCursor({ at: 1700000000123, name: 'alpha', seq: 3 }), '1700000000123.alpha.3')
  assert.is(formatCursor({ at: 0, name: 'x', seq: 0 }), '0.x.0')
})

test('parseCursor reads a simple cursor', () => {
  assert.equal(parseCursor('1700000000123.alpha.3'), { at: 1700000000123, name: 'alpha', seq: 3 })
})

test('round trip, including names that hold dots', () => {
  const cursors: Cursor[] = [
    { at: 1700000000123, name: 'alpha', seq: 1 },
    { at: 1, name: 'a.b', seq: 2 },
    { at: 1700000000123, name: 'r1-builder.i2.x', seq: 42 },
    { at: 5, name: 'a..b', seq: 7 },
    { at: 9999, name: '12', seq: 999999999 },
    { at: 1700000000123, name: 'x_y-z', seq: 0 },
  ]
  for (const c of cursors) {
    const text = formatCursor(c)
    assert.equal(parseCursor(text), c, text)
    assert.is(formatCursor(parseCursor(text)!), text)
  }
})

test('a dotted name: time before the first dot, sequence after the last', () => {
  assert.equal(parseCursor('10.a.b.c.4'), { at: 10, name: 'a.b.c', seq: 4 })
  assert.equal(parseCursor('10.5.6'), { at: 10, name: '5', seq: 6 })
})

test('malformed cursors are rejected', () => {
  const bad = [
    '',
    '.',
    '..',
    'abc',
    '123',
    '1.2', // no name
    '1..2', // empty name
    '.a.1', // no time
    '1.a.', // no sequence
    'x.a.1', // time not a number
    '1.a.x', // sequence not a number
    '-1.a.1',
    '1.a.-1',
    '1e3.a.1',
    '1.5.a.1x',
    ' 1.a.1',
    '1.a.1 ',
    '1.a.1\n',
    '0x10.a.1',
    '1.a.1.5e', // sequence must be digits
    '12345678901234567.a.1', // 17-digit time
    '1.a.1234567890', // 10-digit sequence
  ]
  for (const b of bad) assert.is(parseCursor(b), undefined, JSON.stringify(b))
})

test('compareCursor orders by time, then name, then sequence', () => {
  const a: Cursor = { at: 100, name: 'b', seq: 5 }
  assert.ok(compareCursor({ at: 99, name: 'z', seq: 9 }, a) < 0)
  assert.ok(compareCursor({ at: 101, name: 'a', seq: 1 }, a) > 0)
  assert.ok(compareCursor({ at: 100, name: 'a', seq: 9 }, a) < 0)
  assert.ok(compareCursor({ at: 100, name: 'c', seq: 1 }, a) > 0)
  assert.ok(compareCursor({ at: 100, name: 'b', seq: 4 }, a) < 0)
  assert.ok(compareCursor({ at: 100, name: 'b', seq: 6 }, a) > 0)
  assert.is(compareCursor({ at: 100, name: 'b', seq: 5 }, a), 0)
})

test('compareCursor is a total order usable for sorting (antisymmetric)', () => {
  const list: Cursor[] = [
    { at: 3, name: 'b', seq: 1 },
    { at: 1, name: 'z', seq: 2 },
    { at: 3, name: 'a', seq: 9 },
    { at: 3, name: 'a', seq: 2 },
    { at: 2, name: 'a.b', seq: 1 },
    { at: 2, name: 'a', seq: 1 },
  ]
  const sorted = [...list].sort(compareCursor).map(formatCursor)
  assert.equal(sorted, ['1.z.2', '2.a.1', '2.a.b.1', '3.a.2', '3.a.9', '3.b.1'])
  for (const x of list)
    for (const y of list) assert.is(Math.sign(compareCursor(x, y)), -Math.sign(compareCursor(y, x)) || 0)
})

test('sequence compares numerically, not as text', () => {
  assert.ok(compareCursor({ at: 1, name: 'a', seq: 10 }, { at: 1, name: 'a', seq: 9 }) > 0)
  assert.ok(compareCursor({ at: 10, name: 'a', seq: 1 }, { at: 9, name: 'a', seq: 1 }) > 0)
})

test('isAfter: everything is after no cursor; strictly after otherwise', () => {
  const c: Cursor = { at: 100, name: 'b', seq: 5 }
  assert.ok(isAfter(c, undefined))
  assert.not.ok(isAfter(c, { ...c }))
  assert.ok(isAfter(c, { at: 99, name: 'b', seq: 5 }))
  assert.ok(isAfter(c, { at: 100, name: 'a', seq: 5 }))
  assert.ok(isAfter(c, { at: 100, name: 'b', seq: 4 }))
  assert.not.ok(isAfter(c, { at: 101, name: 'a', seq: 1 }))
  assert.not.ok(isAfter(c, { at: 100, name: 'b', seq: 6 }))
})

test('isAfter over parsed cursors filters a report list oldest-first', () => {
  const reports = ['5.a.1', '5.b.1', '6.a.2', '7.c.1'].map((t) => parseCursor(t)!)
  const after = parseCursor('5.b.1')
  assert.equal(reports.filter((r) => isAfter(r, after)).map(formatCursor), ['6.a.2', '7.c.1'])
})

test.run()
