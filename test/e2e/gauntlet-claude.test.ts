import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gitIn } from '../../cli/demo/sample-project.js'
import { rpc } from '../helpers/activity.js'
import { until } from '../helpers/home.js'
import { buildSteps, steps } from './gauntlet-kit.js'
import { gauntletTests } from './gauntlet-runs.js'

/** A whole gauntlet with the real claude: a builder commits, pushes and reports; a critic judges that very commit and
 * files its verdict; both are reaped; an orchestrator lane launches a builder of its own and waits for it. Every
 * command runs through claude's Bash tool, as the stand-in model asks, under each role's default permission policy
 * (nothing allowed in the user settings): a command outside it asks through needs-you, and the lane carries on. */

const now = gauntletTests('claude', 'Bash tool')

test('a push to another branch and a forced push to main are outside the builder’s policy: each needs-you (permission), denied, then it builds and reports asking nothing else', async () => {
  const g = await now.home()
  const { h, s } = g
  const push = 'git push origin HEAD:refs/heads/release'
  const force = 'git push -f origin HEAD:main'
  const lane = await g.start('g5', 'b', 'builder', steps([push, force, ...buildSteps('p.txt', 'built p.txt')]))
  await until(
    async () => / needs-you \(permission\) /.test(await h.ok(['lane', 'list', '--run', 'g5'], { env: s.env })),
    'the lane list shows needs-you (permission)',
    30_000,
  )
  const asked = (await rpc(h, 'convShow', { conv: lane })).pending
  assert.equal([asked.kind, asked.tool, asked.input.command], ['permission', 'Bash', push])
  await h.ok(['conv', 'answer', lane, 'deny', '--message', 'push your own branch only'])
  const forced = await until(async () => {
    const v = await rpc(h, 'convShow', { conv: lane })
    return v.pending?.input?.command === force && v
  }, 'the forced push asks')
  assert.equal([forced.activity, forced.reason, forced.evidence.detail], ['needs-you', 'permission', 'Bash'])
  const main = () => gitIn(s.project.origin, 'rev-parse', 'refs/heads/main').trim()
  assert.is(main(), gitIn(s.project.checkout, 'rev-parse', 'origin/main').trim(), 'main untouched while it waits')
  await h.ok(['conv', 'answer', lane, 'deny', '--message', 'never force main'])
  const waited = await g.wait(lane)
  assert.equal([waited.code, waited.stdout], [0, 'built p.txt\n'], waited.stderr)
  assert.is(gitIn(s.project.origin, 'branch', '--list', 'release'), '', 'the denied push never ran')
  assert.is(main(), gitIn(s.project.checkout, 'rev-parse', 'origin/main').trim(), 'the denied forced push never ran')
  const head = gitIn(`${s.lanesRoot}/g5-b`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/g5/b').trim(), head, 'its own branch is on origin')
  const asks = (await g.transcript(lane)).filter((l) => l.includes('needs you'))
  assert.equal(
    asks,
    ['tool needs you (permission): Bash', 'tool needs you (permission): Bash'],
    'the two commands outside the policy asked, nothing else (the commit, the push of its own branch, the report)',
  )
})

test.run()
