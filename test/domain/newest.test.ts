import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { newestPhase } from '../../kernel/domain/activity.js'
import { isJudgeRole, ROLES } from '../../kernel/domain/keys.js'
import { inIdOrder, newest, newestBy } from '../../kernel/domain/newest.js'

// One predicate per question: "newest by time" and "is this a critic or a verifier", each written once.

test('newestBy: the greatest time; of equal times the later in the list; nothing of nothing', () => {
  const rows: [string, { at: number; n: string }[], string | undefined][] = [
    [
      'greatest time',
      [
        { at: 2, n: 'a' },
        { at: 5, n: 'b' },
        { at: 3, n: 'c' },
      ],
      'b',
    ],
    [
      'a tie goes to the later',
      [
        { at: 5, n: 'a' },
        { at: 5, n: 'b' },
      ],
      'b',
    ],
    ['empty', [], undefined],
  ]
  for (const [name, xs, want] of rows) {
    assert.is(newestBy(xs, (x) => x.at)?.n, want, name)
    assert.is(newest(xs)?.n, want, name)
  }
  assert.is(newest([undefined, { at: 1 }, undefined])?.at, 1, 'absent candidates are skipped')
  assert.equal(
    newestPhase(undefined, { at: 4, v: 'hook' }, { at: 4, v: 'mark' }),
    { at: 4, v: 'mark' },
    'newestPhase is the same rule',
  )
})

test('isJudgeRole: critic and verifier, nothing else', () => {
  assert.equal(ROLES.filter(isJudgeRole), ['critic', 'verifier'])
  assert.is(isJudgeRole(undefined), false)
})

test('inIdOrder: ids compare as numbers, not as text', () => {
  const rows: [string, string[], string[]][] = [
    ['9 before 10', ['10', '9'], ['9', '10']],
    ['already in order', ['1', '2', '3'], ['1', '2', '3']],
    ['100 after 20', ['100', '20', '3'], ['3', '20', '100']],
  ]
  for (const [name, ids, want] of rows)
    assert.equal(
      ids
        .map((id) => ({ id }))
        .sort(inIdOrder)
        .map((x) => x.id),
      want,
      name,
    )
})

test.run()
