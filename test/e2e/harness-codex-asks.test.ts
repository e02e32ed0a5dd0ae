import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitIn } from '../../cli/demo/sample-project.js'
import { untilActivity } from '../helpers/activity.js'
import { until } from '../helpers/home.js'
import { setupProject } from '../helpers/project.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'
import { buildSteps, MODELS, steps } from './gauntlet-kit.js'

/** A Codex lane asks a person for what its sandbox refuses, through needs-you, on the real codex (node_modules): the
 * stand-in model asks to run a command outside the sandbox as codex's model does after the sandbox refused it. */

let r: RealHome
test.after.each(async () => {
  await r?.stop()
})

const start = (key: string, brief: string) => [
  ...['lane', 'start', '--run', 'r1', '--key', key, '--role', 'builder'],
  ...['--harness', 'codex', '--model', MODELS.codex, '--prompt', brief],
]

test('a codex builder that must go outside its sandbox asks through needs-you and carries on after each answer: allowed, the command runs; denied, it does not, and the builder still reports', async () => {
  r = await realHarnessHome('codex-ask')
  const { h } = r
  const s = await setupProject(h)
  // Outside the worktree and every writable root of the builder's policy.
  const outside = join(h.home, 'outside')
  mkdirSync(outside)
  const [build, report] = buildSteps('b.txt', 'b done')
  const escalated = (key: string) => `escalated: echo ${key} > ${outside}/${key}.txt`
  const started = await h.svc(start('b', steps([build, escalated('yes'), escalated('no'), report])), { env: s.env })
  assert.is(started.code, 0, started.stderr)
  const lane = 'conv-r1-b-builder-i1'
  const asks = async (key: string, step: number) => {
    const line =
      `tool needs you (permission): $ echo ${key} > ${outside}/${key}.txt ` +
      `(Step ${step} writes outside the sandbox)`
    await until(async () => (await r.transcript(lane)).includes(line), `the ask to write ${key}.txt`, 25_000)
    const v = await untilActivity(h, lane, 'needs-you (permission)', 25_000)
    assert.is(v.evidence.detail, 'command')
    assert.not.ok(existsSync(join(outside, `${key}.txt`)), 'nothing written outside while it waits')
    assert.match(await h.ok(['lane', 'list', '--run', 'r1']), /r1\/b +builder +i1 +needs-you \(permission/)
  }
  // The transcript says what it asks to run, and why.
  await asks('yes', 2)
  assert.is((await h.svc(['conv', 'answer', lane, 'allow'], { env: s.env })).code, 0)
  await asks('no', 3)
  assert.is(readFileSync(join(outside, 'yes.txt'), 'utf8'), 'yes\n', 'allowed: it ran')
  assert.is((await h.svc(['conv', 'answer', lane, 'deny'], { env: s.env })).code, 0)
  const waited = await h.svc(['lane', 'wait', lane, '--timeout', '25'], { env: s.env })
  assert.is(waited.code, 0, waited.stderr)
  assert.match(waited.stdout, 'b done')
  const head = gitIn(`${s.lanesRoot}/r1-b`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/r1/b').trim(), head, 'its branch is on origin')
  assert.not.ok(existsSync(join(outside, 'no.txt')), 'denied: it did not')
  assert.ok((await r.transcript(lane)).includes(`tool $ echo no > ${outside}/no.txt → declined`))
})

test.run()
