import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isDriven, mayStillChange } from '../../kernel/domain/conversation.js'

// Which conversations the watcher watches and the reconcile checks: every combination.

const ended = { at: 1, source: 'stop', detail: 'x' }

test('isDriven: a runner drives it, and its record says neither ended nor archived', () => {
  for (const harness of ['shell', 'claude', 'codex', 'none'])
    for (const e of [undefined, ended])
      for (const archived of [undefined, false, true]) {
        const want = harness !== 'none' && !e && !archived
        assert.is(isDriven({ harness, ended: e, archived } as never), want, `${harness} ended=${Boolean(e)} archived=${archived}`)
      }
})

test('mayStillChange: driven, and its runner has not written its end; the state is read only when driven', () => {
  const unread = () => {
    throw new Error('the state of a conversation that is not driven was read')
  }
  const live = { harness: 'shell', ended: undefined, archived: undefined } as never
  assert.is(mayStillChange(live, () => undefined), true, 'no state yet: the runner may still write one')
  assert.is(mayStillChange(live, () => ({})), true)
  assert.is(mayStillChange(live, () => ({ ended: { at: 2 } })), false, 'the runner wrote its end')
  assert.is(mayStillChange({ harness: 'none' } as never, unread), false)
  assert.is(mayStillChange({ harness: 'shell', ended } as never, unread), false)
  assert.is(mayStillChange({ harness: 'shell', archived: true } as never, unread), false)
})

test.run()
