import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gitIn } from '../../cli/demo/sample-project.js'
import { buildSteps, gauntletHome, printfBrief, steps, eachGauntlet } from './gauntlet-kit.js'

/** A whole gauntlet with the real claude: a builder commits, pushes and reports; a critic judges that very commit and
 * files its verdict; both are reaped; an orchestrator lane launches a builder of its own and waits for it. Every
 * command runs through claude's Bash tool, as the stand-in model asks. */

const now = eachGauntlet('claude')

test('builder → critic → verdict → reap: the critic judges the builder’s pushed commit; both lanes reaped', async () => {
  const g = (now.g = await gauntletHome('gauntlet-claude', 'claude'))
  const { h, s } = g
  await g.start('g1', 'b', 'builder', steps(buildSteps('work.txt', 'built work.txt')))
  const built = await g.wait('conv-g1-b-builder-i1')
  assert.equal([built.code, built.stdout], [0, 'built work.txt\n'], built.stderr)
  const head = gitIn(`${s.lanesRoot}/g1-b`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/g1/b').trim(), head, 'the branch is on origin')

  const verdict = '$HOME/verdict-g1.json'
  await g.start(
    'g1',
    'b',
    'critic',
    steps([
      `echo '{"defects":[]}' > ${verdict} && printf 'judged %s\\n' "$(git rev-parse HEAD)" | svc lane report --stdin --verdict IMPRESSED --verdict-file ${verdict}`,
    ]),
  )
  const judged = await g.wait('conv-g1-b-critic-i1')
  assert.equal([judged.code, judged.stdout], [0, `judged ${head}\n`], judged.stderr)
  const list = await h.ok(['lane', 'list', '--run', 'g1'], { env: s.env })
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
})

test('an orchestrator lane launches a builder from its Bash tool and waits for its report', async () => {
  const g = (now.g = await gauntletHome('gauntlet-claude-orch', 'claude'))
  const { h, s } = g
  const brief = '$HOME/w-brief.md'
  await g.start(
    'g2',
    'o',
    'orchestrator',
    steps([
      `${printfBrief(buildSteps('w.txt', 'built w.txt'), brief)} && svc lane start --key w --role builder --brief ${brief}`,
      `svc lane wait --run g2 --timeout 60 > $HOME/w-report.md && svc lane report --file $HOME/w-report.md`,
    ]),
  )
  const waited = await g.wait('conv-g2-o-orchestrator-i1', 60)
  assert.equal([waited.code, waited.stdout], [0, 'built w.txt\n'], waited.stderr)
  const lanes = JSON.parse(await h.ok(['lane', 'list', '--run', 'g2', '--json'], { env: s.env }))
  const w = lanes.find((l: any) => l.key === 'w')
  assert.equal([w.role, w.report?.status, w.parent], ['builder', 'done', lanes.find((l: any) => l.key === 'o').id])
})

test.run()
