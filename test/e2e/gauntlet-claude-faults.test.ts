import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../helpers/home.js'
import { buildSteps, gauntletHome, steps, eachGauntlet } from './gauntlet-kit.js'

/** The real claude in a gauntlet lane that needs a person, and in lanes whose model service fails mid-turn after
 * real work: the status each is left in, and how a wait on it ends. */

const now = eachGauntlet('claude')

test('a builder asks a question: needs-you (question) in the lane list, answered, then it builds and reports', async () => {
  const g = (now.g = await gauntletHome('gauntlet-claude-ask', 'claude'))
  const { h, s } = g
  const lane = await g.start('g3', 'b', 'builder', steps(['ask: Ship it now?', ...buildSteps('q.txt', 'built q.txt')]))
  await until(
    async () => / needs-you \(question\) /.test(await h.ok(['lane', 'list', '--run', 'g3'], { env: s.env })),
    'the lane list shows needs-you with its reason',
  )
  await h.ok(['conv', 'answer', lane, 'allow', '--message', 'Go ahead'])
  const waited = await g.wait(lane)
  assert.equal([waited.code, waited.stdout], [0, 'built q.txt\n'], waited.stderr)
})

test('a 529, a 401 and a broken stream after real work: idle (error: …) and idle (no report), never failed-to-start; each wait ends at once with exit 2 and a tell', async () => {
  const g = (now.g = await gauntletHome('gauntlet-claude-faults', 'claude'))
  const { h, s } = g
  const faults = ['http-529', 'http-401', 'broken']
  const lanes: string[] = []
  for (const f of faults) lanes.push(await g.start('g4', f, 'builder', steps([`echo ${f} > step.txt`], f), '--no-wait'))
  for (const lane of lanes) {
    const waited = await g.wait(lane)
    assert.is(waited.code, 2, waited.stderr)
    const [said, next] = waited.stderr.split('\n')
    assert.match(said, /^svc: lane g4\/[a-z0-9-]+ builder i1 ended its turn with no report \(idle \(error: .+\)\)$/)
    assert.is(
      next,
      `next: svc tell ${lane} 'Your last turn ended with an error and no report. Go on with the brief, then file your report with svc lane report.' && svc lane wait ${lane}`,
    )
  }
  const listed = await h.svc(['lane', 'list', '--run', 'g4'], { env: s.env })
  for (const f of faults) assert.match(listed.stdout, new RegExp(`g4/${f} +builder +i1 +idle \\(no report\\) `))
  assert.not.match(listed.stdout + listed.stderr, 'failed-to-start')
  const words = listed.stderr.trim().split('\n')
  assert.is(words.length, 3, listed.stderr)
  assert.match(words[0], /^#\d+ g4\/http-529 builder i1: idle \(error: API Error: 529 .*Overloaded/)
  assert.match(
    words[1],
    /^#\d+ g4\/http-401 builder i1: idle \(error: Invalid API key · Fix external API key\)$/,
    listed.stderr,
  )
  assert.match(
    words[2],
    /^#\d+ g4\/broken builder i1: idle \(error: API Error: Connection to the API was lost \(ECONNRESET\)/,
  )
  for (const f of faults)
    assert.match(
      await h.ok(['conv', 'show', `conv-g4-${f}-builder-i1`]),
      /\ncost: \$0\.0\d{2,}/,
      'a cost under a cent shows its digits',
    )
})

test.run()
