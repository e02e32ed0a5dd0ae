import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../helpers/home.js'
import { buildSteps, steps, eachGauntlet } from './gauntlet-kit.js'
import { faultsMidTurn } from './gauntlet-runs.js'

/** The real claude in a gauntlet lane that needs a person, and in lanes whose model service fails mid-turn after
 * real work: the status each is left in, and how a wait on it ends. */

const now = eachGauntlet('claude')

test('a builder asks a question: needs-you (question) in the lane list, answered, then it builds and reports', async () => {
  const g = await now.home()
  const { h, s } = g
  const lane = await g.start('g3', 'b', 'builder', steps(['ask: Ship it now?', ...buildSteps('q.txt', 'built q.txt')]))
  await until(
    async () => / needs-you \(question\) /.test(await h.ok(['lane', 'list', '--run', 'g3'], { env: s.env })),
    'the lane list shows needs-you with its reason',
    30_000,
  )
  await h.ok(['conv', 'answer', lane, 'allow', '--message', 'Go ahead'])
  const waited = await g.wait(lane)
  assert.equal([waited.code, waited.stdout], [0, 'built q.txt\n'], waited.stderr)
})

test('a 529, a 401 and a broken stream after real work: idle (error: …) and idle (no report), never failed-to-start; each wait ends at once with exit 2 and a tell', () =>
  faultsMidTurn(now, 'claude', {
    'http-529': /: idle \(error: API Error: 529 Overloaded\./,
    'http-401': /: idle \(error: Invalid API key · Fix external API key\)$/,
    broken: /: idle \(error: API Error: Connection to the API was lost \(ECONNRESET\)/,
  }))

test.run()
