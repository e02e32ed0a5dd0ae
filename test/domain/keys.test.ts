import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  CONV_NAME,
  EFFORTS,
  LANE_KEY,
  ROLES,
  RUN_KEY,
  VERDICTS,
  invalidLaneKey,
  invalidRunKey,
  isLaneKey,
  isRole,
  isRunKey,
  convRefParsed,
  keysFit,
  parseConvRef,
} from '../../kernel/domain/keys.js'
import { ALLOWED, allow, refuse, type Decision } from '../../kernel/domain/refusal.js'

const rep = (c: string, n: number) => c.repeat(n)

test('the refusals of a bad key quote it and the pattern it must match', () => {
  assert.is(invalidRunKey('R1'), "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$")
  assert.is(invalidLaneKey('.k'), "invalid lane key '.k': it must match ^[a-z0-9][a-z0-9._-]{0,39}$")
})

test('RUN_KEY is exactly the pattern of SPEC.md', () => {
  assert.is(RUN_KEY.source, '^[a-z0-9][a-z0-9-]{0,31}$')
  assert.is(LANE_KEY.source, '^[a-z0-9][a-z0-9._-]{0,39}$')
})

test('run key: length boundaries 1, 32 accepted; 0, 33 refused', () => {
  assert.ok(isRunKey('a'))
  assert.ok(isRunKey('0'))
  assert.ok(isRunKey('a' + rep('b', 31)))
  assert.is(('a' + rep('b', 31)).length, 32)
  assert.ok(isRunKey('a' + rep('-', 31)))
  assert.not.ok(isRunKey(''))
  assert.not.ok(isRunKey('a' + rep('b', 32)))
  assert.not.ok(isRunKey(rep('9', 33)))
})

test('run key: allowed characters', () => {
  for (const k of ['abc', 'r1', '2024-06-01', 'x-y-z', 'a-', '0-0']) assert.ok(isRunKey(k), k)
})

test('run key: forbidden characters and leading characters', () => {
  for (const k of ['-a', 'A', 'aB', 'a_b', 'a.b', 'a b', 'a/b', '.a', '_a', 'é', 'a\n', '\na', 'a\0', 'ab:c', 'a+b'])
    assert.not.ok(isRunKey(k), JSON.stringify(k))
  // RUN_KEY itself agrees with isRunKey
  assert.not.ok(RUN_KEY.test('a.b'))
  assert.ok(RUN_KEY.test('a-b'))
})

test('lane key: length boundaries 1, 40 accepted; 0, 41 refused', () => {
  assert.ok(isLaneKey('a'))
  assert.ok(isLaneKey('a' + rep('b', 39)))
  assert.is(('a' + rep('b', 39)).length, 40)
  assert.ok(isLaneKey('0' + rep('.', 39)))
  assert.not.ok(isLaneKey(''))
  assert.not.ok(isLaneKey('a' + rep('b', 40)))
  assert.not.ok(isLaneKey(rep('1', 41)))
})

test('lane key: allowed characters include dot, underscore and hyphen after the first', () => {
  for (const k of ['a.b', 'a_b', 'a-b', 'ui.v2_fix-3', '9lives', 'a..', 'a__', 'a--']) assert.ok(isLaneKey(k), k)
})

test('lane key: forbidden characters and leading characters', () => {
  for (const k of ['.a', '_a', '-a', 'A', 'aB', 'a b', 'a/b', '../x', 'a\\b', 'a\n', 'a\0', 'ä', 'a:b', 'a@b'])
    assert.not.ok(isLaneKey(k), JSON.stringify(k))
})

test('value sets of SPEC.md', () => {
  assert.equal([...ROLES].sort(), ['builder', 'critic', 'orchestrator', 'play', 'verifier'])
  assert.equal([...EFFORTS], ['low', 'medium', 'high'])
  assert.equal([...VERDICTS].sort(), ['DEFECTS', 'IMPRESSED', 'NOT_YET', 'PASS', 'WOWED'])
  for (const r of ROLES) assert.ok(isRole(r))
  for (const r of ['Builder', 'reviewer', '', undefined, 3]) assert.not.ok(isRole(r))
})

// ---- parseConvRef ----

test('parseConvRef: a numeric id', () => {
  assert.equal(parseConvRef('1'), { by: 'id', id: '1' })
  assert.equal(parseConvRef('42'), { by: 'id', id: '42' })
  assert.equal(parseConvRef('123456789012'), { by: 'id', id: '123456789012' })
})

test('parseConvRef: a plain name', () => {
  assert.equal(parseConvRef('alpha'), { by: 'name', names: ['alpha'] })
  assert.equal(parseConvRef('r1-b.i2_x'), { by: 'name', names: ['r1-b.i2_x'] })
})

test('parseConvRef: conv-<name> tries the name first, then the literal', () => {
  assert.equal(parseConvRef('conv-alpha'), { by: 'name', names: ['alpha', 'conv-alpha'] })
  assert.equal(parseConvRef('conv-a.b'), { by: 'name', names: ['a.b', 'conv-a.b'] })
  assert.equal(parseConvRef('conv-7'), { by: 'name', names: ['7', 'conv-7'] })
})

test('parseConvRef: names are bounded by CONV_NAME (its exact bound accepted, one more refused)', () => {
  const max = Number(/\{0,(\d+)\}\$$/.exec(CONV_NAME.source)?.[1]) + 1
  assert.ok(max >= 80, `bound ${max}`)
  assert.equal(parseConvRef('a' + rep('b', max - 1)), { by: 'name', names: ['a' + rep('b', max - 1)] })
  assert.is(parseConvRef('a' + rep('b', max)), undefined)
  assert.is(parseConvRef('a'.repeat(1000)), undefined)
})

test('parseConvRef: path escapes are refused', () => {
  for (const r of [
    'conv-../x',
    '../x',
    '..',
    '.',
    'conv-..',
    'conv-.',
    'a/b',
    'conv-a/b',
    '/etc/passwd',
    '.hidden',
    'conv-.hidden',
    'a\\b',
    '..\\x',
  ]) {
    const p = parseConvRef(r)
    if (p === undefined) continue
    // whatever is accepted must never be a name that leaves the agents directory
    assert.is(p.by, 'name', r)
    if (p.by === 'name')
      for (const n of p.names) {
        assert.not.ok(n.includes('/'), `${r} -> ${n}`)
        assert.not.ok(n.startsWith('.'), `${r} -> ${n}`)
        assert.not.ok(n.includes('\\'), `${r} -> ${n}`)
      }
  }
  assert.is(parseConvRef('conv-../x'), undefined)
  assert.is(parseConvRef('../x'), undefined)
  assert.is(parseConvRef('..'), undefined)
  assert.is(parseConvRef('a/b'), undefined)
  assert.is(parseConvRef('.hidden'), undefined)
})

test('parseConvRef: empty, NUL, newline, spaces and uppercase are refused', () => {
  for (const r of [
    '',
    ' ',
    '\0',
    'a\0b',
    'conv-a\0',
    'alpha\n',
    '\nalpha',
    'conv-alpha\n',
    '1\n',
    'al pha',
    'Alpha',
    'ALPHA',
    'conv-Alpha',
    'CONV-alpha',
  ])
    assert.is(parseConvRef(r), undefined, JSON.stringify(r))
  // "conv-" alone names no conversation by the prefix rule: it never yields an empty name
  const bare = parseConvRef('conv-')
  assert.ok(bare === undefined || (bare.by === 'name' && !bare.names.includes('')))
})

test('parseConvRef: every accepted name matches CONV_NAME', () => {
  for (const r of ['alpha', 'conv-alpha', 'conv-conv-x', 'x.y', 'conv-9']) {
    const p = parseConvRef(r)
    assert.ok(p && p.by === 'name', r)
    if (p?.by === 'name') for (const n of p.names) assert.ok(CONV_NAME.test(n), n)
  }
})

test('parseConvRef: 0 and leading zeros are not ids', () => {
  const zero = parseConvRef('0')
  assert.ok(zero === undefined || zero.by === 'name')
  const lead = parseConvRef('012')
  assert.ok(lead === undefined || lead.by === 'name')
})

test('convRefParsed: a reference that is no id, name or conv-<name> is refused, echoed on one short line', () => {
  const no = (shown: string) => refuse('usage', `'${shown}' is not a conversation id, name or conv-<name>`)
  const CASES: [string, Decision<{ parsed: ReturnType<typeof parseConvRef> }>][] = [
    ['12', allow({ parsed: { by: 'id', id: '12' } })],
    ['conv-x', allow({ parsed: { by: 'name', names: ['x', 'conv-x'] } })],
    ['../x', no('../x')],
    ['', no('')],
    ['a\nb', no('a\\nb')],
    ['A'.repeat(100), no('A'.repeat(77) + '...')],
  ]
  for (const [ref, want] of CASES) assert.equal(convRefParsed(ref), want, ref)
})

test('keysFit: a run or lane key to pick lanes by is one a lane could have (the run is checked first)', () => {
  const CASES: [{ run?: string; key?: string }, Decision][] = [
    [{}, ALLOWED],
    [{ run: 'r1', key: 'k.1' }, ALLOWED],
    [{ run: 'R1' }, refuse('usage', "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$")],
    [{ key: '.k' }, refuse('usage', "invalid lane key '.k': it must match ^[a-z0-9][a-z0-9._-]{0,39}$")],
    [{ run: 'r_1', key: '.k' }, refuse('usage', "invalid run key 'r_1': it must match ^[a-z0-9][a-z0-9-]{0,31}$")],
  ]
  for (const [k, want] of CASES) assert.equal(keysFit(k), want, JSON.stringify(k))
})

test.run()
