import { EventEmitter } from 'node:events'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { KernelContext, KernelEvent } from '../../kernel/services/context.js'
import { Notifier } from '../../kernel/services/notifier.js'
import { until } from '../helpers/home.js'

// The notifier on a kernel context of the test's: its notify block, the conversation's activity and the webhook are
// the test's, so the moment the notifier reads the activity is too.

interface View {
  activity: string
  reason?: string
  evidence: { source: string; at: number }
}

function world() {
  const events = new EventEmitter()
  const posted: { event: string; reason?: string }[] = []
  let view: View = { activity: 'working', evidence: { source: 'self-mark', at: 1_000 } }
  const block = { config: { webhook: { url: 'http://127.0.0.1:1/' } } }
  /** While held, each read of the notify block waits for the test to let it end, as a slow disk would. */
  let held: (() => void)[] | undefined
  const rec = { id: 4, name: 'c4', title: 'asks' }
  const ctx = {
    io: {
      notify: {
        configFile: () => ({
          read: () => (held ? new Promise((resolve) => held!.push(() => resolve(block))) : Promise.resolve(block)),
        }),
        postJson: async (_url: string, body: { event: string; reason?: string }) => {
          posted.push({ event: body.event, reason: body.reason })
          return { ok: true }
        },
        runCommand: async () => ({ ok: true }),
      },
      timing: (_name: string, ms: number) => ms,
      clock: { now: () => 500 },
    },
    log: (level: string, line: string) => assert.unreachable(`${level} ${line}`),
    events,
    store: { getByName: (name: string) => (name === rec.name ? rec : undefined), reports: async () => [] },
    view: () => view,
  } as unknown as KernelContext
  return {
    ctx,
    posted,
    change: () => events.emit('change', { name: rec.name, what: 'state' } satisfies KernelEvent),
    set: (v: View) => (view = v),
    hold: () => (held = []),
    release: () => {
      const waiting = held ?? []
      held = undefined
      for (const end of waiting) end()
    },
  }
}

const turn = () => new Promise((r) => setImmediate(r))

test('a needs-you left again before its change is handled still posts once: the activity is taken as the change left it', async () => {
  const w = world()
  new Notifier(w.ctx, '/nowhere/notify.yaml').start()
  await turn()
  // Notifications are on; a first change is seen as working.
  w.change()
  await turn()
  // The conversation asks (its change heard twice, as the watcher echoes the kernel's write), and its changes wait
  // their turn behind a slow read of the block while the lane exits.
  w.hold()
  w.set({ activity: 'needs-you', reason: 'question', evidence: { source: 'self-mark', at: 2_000 } })
  w.change()
  w.change()
  w.set({ activity: 'stopped', evidence: { source: 'exit', at: 2_001 } })
  w.change()
  w.release()
  // A later needs-you is the barrier: posts leave one at a time in order, so any other would come before it.
  w.set({ activity: 'needs-you', reason: 'plan', evidence: { source: 'self-mark', at: 3_000 } })
  w.change()
  await until(() => w.posted.length >= 2, 'two posts', 2_000)
  assert.equal(w.posted, [
    { event: 'needs-you', reason: 'question' },
    { event: 'needs-you', reason: 'plan' },
  ])
})

test.run()
