import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fetchServes } from '../../kernel/domain/launch-rules.js'

// Launch rule 5 (SPEC.md 4.1): the base is fetched before every git-backed launch; which fetch may serve an ask.

test('fetchServes: a fetch not begun yet, or begun after the ask; never one begun at or before it', () => {
  assert.is(fetchServes({}, 1000), true, 'waiting its turn: it begins after every ask made so far')
  assert.is(fetchServes({ startedAt: 1001 }, 1000), true, 'began after the ask')
  assert.is(fetchServes({ startedAt: 1000 }, 1000), false, 'began in the same millisecond: the push may have come after it')
  assert.is(fetchServes({ startedAt: 999 }, 1000), false, 'under way before the ask')
})

test.run()
