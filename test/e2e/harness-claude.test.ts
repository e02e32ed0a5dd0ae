import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fakeHarnessHome, harnessLog, rpc, untilActivity } from '../helpers/activity.js'
import { TestHome, until } from '../helpers/home.js'

/** What the real claude cannot do here, on the fake `claude` (fixtures/bin first on the kernel's PATH): hang in a
 * turn ignoring the interrupt, and be an older CLI that does not know an option. Every other flow runs on the real
 * CLI (harness-claude-real.test.ts). */

let f: ReturnType<typeof fakeHarnessHome>
let h: TestHome
let log: string
test.before.each(() => {
  f = fakeHarnessHome()
  ;({ h, log } = f)
})
test.after.each(async () => {
  await h.stop()
})

const stdinOf = (type: string) => harnessLog(log).filter((r) => r.event === 'stdin' && r.type === type)

test('SIGTERM without a result: a harness stuck in its turn ignores the interrupt and is ended by signal; stopped, no result', async () => {
  const id = await f.convNew('scenario:sigterm Run everything')
  await until(
    async () => (await f.transcript(id)).some((l) => l.startsWith('assistant Running the whole suite')),
    'the turn under way',
  )
  assert.is((await rpc(h, 'convShow', { conv: id })).activity, 'working')
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  const v = await rpc(h, 'convShow', { conv: id })
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.detail, 'signal SIGTERM')
  assert.is(v.cost, undefined)
  const lines = await f.transcript(id)
  assert.not.ok(
    lines.some((l) => l.startsWith('system result:')),
    'no result event',
  )
  assert.ok(lines.includes('system harness exited (SIGTERM)'))
  assert.is(stdinOf('control_request').length, 1, 'the interrupt was sent')
})

test('a CLI that does not know a flag: failed-to-start with its error line', async () => {
  h.extraEnv.FAKE_CLAUDE_REJECT = '--effort'
  const id = await f.convNew('scenario:basic hi', '--effort', 'low')
  const v = await untilActivity(h, id, 'failed-to-start')
  assert.is(v.evidence.detail, "claude exited with code 1: error: unknown option '--effort'")
})

test.run()
