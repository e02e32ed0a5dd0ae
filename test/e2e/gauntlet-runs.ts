import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gitIn } from '../../cli/demo/sample-project.js'
import { until } from '../helpers/home.js'
import { buildSteps, eachGauntlet, printfBrief, steps, type GauntletSuite, type Harness } from './gauntlet-kit.js'

/** The gauntlets both harnesses run, each a test body: the claude and codex suites call them with their harness. */

/** builder → critic → verdict → reap: the critic judges the builder's pushed commit; both lanes are reaped. */
export async function builderCriticReap(now: GauntletSuite, harness: Harness) {
  const g = await now.home()
  const { h, s } = g
  await g.start('g1', 'b', 'builder', steps(buildSteps('work.txt', 'built work.txt')))
  const built = await g.wait('conv-g1-b-builder-i1')
  assert.equal([built.code, built.stdout], [0, 'built work.txt\n'], built.stderr)
  const head = gitIn(`${s.lanesRoot}/g1-b`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/g1/b').trim(), head, 'the branch is on origin')

  // No verdict file: writing one outside the tree (a critic leaves it clean) is outside the critic's default policy.
  await g.start(
    'g1',
    'b',
    'critic',
    steps([`git log -1 --format='judged %H' | svc lane report --stdin --verdict IMPRESSED --defects 0`]),
  )
  const judged = await g.wait('conv-g1-b-critic-i1')
  assert.equal(
    [judged.code, judged.stdout],
    [0, `judged ${head}\n`],
    judged.stderr + (await g.transcript('conv-g1-b-critic-i1')).join('\n'),
  )
  // The report reaches the wait while the critic's turn may still be ending (the harness answers the tool's result):
  // the list is read once both lanes are idle.
  const list = await until(async () => {
    const l = await h.ok(['lane', 'list', '--run', 'g1'], { env: s.env })
    return /builder +i1 +idle/.test(l) && /critic +i1 +idle/.test(l) ? l : ''
  }, 'both lanes idle')
  assert.match(list, /g1\/b +builder +i1 +idle +done .* IMPRESSED 0 +g1\/b@/)
  assert.match(list, /g1\/b +critic +i1 +idle +done +b i1 +IMPRESSED 0 /)
  assert.match(
    await h.ok(['lane', 'show', '--run', 'g1', '--key', 'b'], { env: s.env }),
    /^i1 built → critic c\d+: IMPRESSED \(0 defects\)\n/,
  )

  for (const lane of ['conv-g1-b-critic-i1', 'conv-g1-b-builder-i1']) {
    const reaped = await h.svc(['lane', 'reap', lane], { env: s.env, timeoutMs: 60_000 })
    assert.is(reaped.code, 0, reaped.stderr)
  }
  assert.match(await h.ok(['lane', 'list', '--run', 'g1'], { env: s.env }), /g1\/b +critic +i1 +archived/)
}

/** An orchestrator lane launches a builder from its harness's shell tool and waits for its report. */
export async function orchestratorWaits(now: GauntletSuite, harness: Harness) {
  const g = await now.home()
  const { h, s } = g
  await g.start(
    'g2',
    'o',
    'orchestrator',
    steps([
      `${printfBrief(buildSteps('w.txt', 'built w.txt'))} | svc lane start --key w --role builder --brief /dev/stdin`,
      `svc lane wait --run g2 --timeout 60 | svc lane report --stdin`,
    ]),
  )
  const waited = await g.wait('conv-g2-o-orchestrator-i1', 60)
  assert.equal([waited.code, waited.stdout], [0, 'built w.txt\n'], waited.stderr)
  const lanes = JSON.parse(await h.ok(['lane', 'list', '--run', 'g2', '--json'], { env: s.env }))
  const w = lanes.find((l: any) => l.key === 'w')
  assert.equal([w.role, w.report?.status, w.parent], ['builder', 'done', lanes.find((l: any) => l.key === 'o').id])
}

/** A 529, a 401 and a broken stream after real work: each lane idle (error: <its harness's words>) and idle (no
 * report), never failed-to-start; each wait ends at once with exit 2 and a tell. `words` are the harness's own. */
export async function faultsMidTurn(now: GauntletSuite, harness: Harness, words: Record<string, RegExp>) {
  const g = await now.home()
  const { h, s } = g
  const faults = Object.keys(words)
  const lanes: string[] = []
  for (const f of faults) lanes.push(await g.start('g4', f, 'builder', steps([`echo ${f} > step.txt`], f), '--no-wait'))
  for (const lane of lanes) {
    const waited = await g.wait(lane)
    assert.is(waited.code, 2, waited.stderr)
    const [said, next] = waited.stderr.split('\n')
    assert.match(said, /^svc: lane g4\/[a-z0-9-]+ builder i1 ended its turn with no report \(idle \(error: .+\)\)$/)
    assert.is(
      next,
      `next: svc tell ${lane} 'Your last turn ended with an error and no report. Go on with the brief, then file ` +
        `your report with svc lane report.' && svc lane wait ${lane}`,
    )
  }
  const listed = await h.svc(['lane', 'list', '--run', 'g4'], { env: s.env })
  for (const f of faults) assert.match(listed.stdout, new RegExp(`g4/${f} +builder +i1 +idle \\(no report\\) `))
  assert.not.match(listed.stdout + listed.stderr, 'failed-to-start')
  const said = listed.stderr.trim().split('\n')
  assert.is(said.length, faults.length, listed.stderr)
  faults.forEach((f, i) => {
    assert.ok(said[i].startsWith(`#`) && said[i].includes(` g4/${f} builder i1: idle (error: `), listed.stderr)
    assert.match(said[i], words[f], listed.stderr)
  })
  // Both report what the turn used before it failed (codex after each model request), so each has a cost to show.
  for (const f of faults)
    assert.match(
      await h.ok(['conv', 'show', `conv-g4-${f}-builder-i1`]),
      /\ncost: ~?\$0\.0\d{2,}/,
      'a cost under a cent shows its digits',
    )
}

/** The whole gauntlet of one harness as a suite's tests: builder → critic → verdict → reap, and an orchestrator; the
 * suite's gauntlet of the test under way, for tests of its own. */
export function gauntletTests(harness: Harness, shellTool: string): GauntletSuite {
  const now = eachGauntlet(harness)
  test('builder → critic → verdict → reap: the critic judges the builder’s pushed commit; both lanes reaped', () =>
    builderCriticReap(now, harness))
  test(`an orchestrator lane launches a builder from its ${shellTool} and waits for its report`, () =>
    orchestratorWaits(now, harness))
  return now
}
