import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gitIn } from '../../cli/demo/sample-project.js'
import { execBrief } from '../../fixtures/model-script.js'
import { untilActivity } from '../helpers/activity.js'
import { setupProject } from '../helpers/project.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'

/** A role's permission policy on the real claude (node_modules), whose Bash tool runs the stand-in model's commands:
 * under the default policy a builder commits, pushes and reports without once asking; a command outside the policy
 * still stops for a person (needs-you, permission). */

const MODEL = 'claude-sonnet-4-5'
let r: RealHome
test.after.each(async () => {
  await r?.stop()
})

const start = (key: string, brief: string) => [
  'lane',
  'start',
  '--run',
  'r1',
  '--key',
  key,
  '--role',
  'builder',
  '--harness',
  'claude',
  '--model',
  MODEL,
  '--prompt',
  brief,
]

test('claude builder under the default policy commits, pushes and reports with no needs-you; anything else asks', async () => {
  r = await realHarnessHome('claude-policy')
  const { h } = r
  const s = await setupProject(h)
  const built = await h.svc(
    start(
      'b',
      execBrief(
        'git add -A && git commit -qm work --allow-empty && git push -u origin HEAD && svc lane report --stdin <<< ' +
          '"built and pushed"',
      ),
    ),
    { env: s.env },
  )
  assert.is(built.code, 0, built.stderr)
  const waited = await h.svc(['lane', 'wait', 'conv-r1-b-builder-i1', '--timeout', '25'], { env: s.env })
  assert.is(waited.code, 0, waited.stderr + (await r.transcript('conv-r1-b-builder-i1')).join('\n'))
  assert.match(waited.stdout, 'built and pushed')
  const head = gitIn(`${s.lanesRoot}/r1-b`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/r1/b').trim(), head)
  const asked = (await r.transcript('conv-r1-b-builder-i1')).filter((l) => l.includes('needs you'))
  assert.equal(asked, [], 'nothing asked')

  const other = await h.svc(start('c', execBrief('git push -f origin HEAD:main')), { env: s.env })
  assert.is(other.code, 0, other.stderr)
  const v = await untilActivity(h, 'conv-r1-c-builder-i1', 'needs-you (permission)', 20_000)
  assert.is(v.evidence.detail, 'Bash')
  assert.is(
    gitIn(s.project.origin, 'rev-parse', 'refs/heads/main').trim(),
    gitIn(s.project.checkout, 'rev-parse', 'origin/main').trim(),
    'main untouched while it waits',
  )
})

test.run()
