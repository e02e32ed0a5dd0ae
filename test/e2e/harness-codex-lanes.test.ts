import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gitIn } from '../../cli/demo/sample-project.js'
import { execBrief } from '../../fixtures/model-script.js'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { untilActivity } from '../helpers/activity.js'
import { setupProject } from '../helpers/project.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'

/** Codex lanes do their whole job from inside Codex's own sandbox: the real codex (node_modules) runs the stand-in
 * model's commands with its shell tool, so a builder really commits, pushes and reports, a critic files its verdict
 * on that commit, and an orchestrator launches a lane and waits for it. */

const MODEL = 'gpt-5-codex'
let r: RealHome
test.after.each(async () => {
  await r?.stop()
})

const start = (key: string, role: string, brief: string, ...more: string[]) => [
  'lane',
  'start',
  '--run',
  'r1',
  ...(role === 'critic' ? ['--for', key] : ['--key', key]),
  '--role',
  role,
  '--harness',
  'codex',
  '--model',
  MODEL,
  '--prompt',
  brief,
  ...more,
]

test('codex builder commits, pushes and reports from its sandbox; a codex critic files a verdict on that commit', async () => {
  r = await realHarnessHome('codex-lanes')
  const { h } = r
  const s = await setupProject(h)
  const started = await h.svc(
    start(
      'b',
      'builder',
      execBrief(
        // svc is on the PATH of codex's shell, and a login shell (whose profile resets PATH) finds it too.
        `type -P svc && echo work > work.txt && git add work.txt && git commit -qm work && git push -q -u origin HEAD && bash -lc 'printf "built work.txt\\n" | svc lane report --stdin'`,
      ),
    ),
    { env: s.env },
  )
  assert.is(started.code, 0, started.stderr)
  const waited = await h.svc(['lane', 'wait', 'conv-r1-b-builder-i1', '--timeout', '25'], { env: s.env })
  assert.is(waited.code, 0, waited.stderr)
  assert.match(waited.stdout, 'built work.txt')
  const head = gitIn(`${s.lanesRoot}/r1-b`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/r1/b').trim(), head, 'the branch is on origin')
  assert.is(gitIn(s.project.checkout, 'log', '-1', '--format=%s', 'r1/b').trim(), 'work')

  const critic = await h.svc(
    start(
      'b',
      'critic',
      execBrief(
        'git rev-parse HEAD > /tmp/judged-$$ && echo \'{"defects":[]}\' > /tmp/verdict-$$.json && printf "judged %s\\n" "$(cat /tmp/judged-$$)" | svc lane report --stdin --verdict IMPRESSED --verdict-file /tmp/verdict-$$.json',
      ),
    ),
    { env: s.env },
  )
  assert.is(critic.code, 0, critic.stderr)
  const verdict = await h.svc(['lane', 'wait', 'conv-r1-b-critic-i1', '--timeout', '25'], { env: s.env })
  assert.is(verdict.code, 0, verdict.stderr)
  assert.match(verdict.stdout, `judged ${head}`)
  const list = await h.ok(['lane', 'list', '--run', 'r1'])
  assert.match(list, /r1\/b +critic +i1 .*IMPRESSED/)
})

test('codex orchestrator launches a lane from its sandbox and waits for its report', async () => {
  r = await realHarnessHome('codex-orch')
  const { h } = r
  const s = await setupProject(h)
  const brief = execBrief(
    "svc lane start --key sub --role builder --harness shell --prompt 'svc lane report --allow-unpushed --stdin <<EOF\nsub done\nEOF' >/dev/null && svc lane wait --run r1 --timeout 20 | grep -q 'sub done' && echo 'run over' | svc lane report --stdin",
  )
  const started = await h.svc(start('o', 'orchestrator', brief), { env: s.env })
  assert.is(started.code, 0, started.stderr)
  const waited = await h.svc(['lane', 'wait', 'conv-r1-o-orchestrator-i1', '--timeout', '25'], { env: s.env })
  assert.is(waited.code, 0, waited.stderr)
  assert.match(waited.stdout, 'run over')
  const list = await h.ok(['lane', 'list', '--run', 'r1'])
  assert.match(list, /r1\/sub +builder +i1/)
})

/** A `steps` brief: one shell tool call per block, in order; an escalated one asks to run outside the sandbox. */
const steps = (...blocks: Array<[kind: 'sh' | 'sh-escalated', command: string]>) =>
  `scenario:steps\n\n${blocks.map(([kind, c]) => '```' + kind + '\n' + c + '\n```').join('\n\n')}\n`

test('a codex builder that must go outside its sandbox asks through needs-you and carries on after the answer: allowed, the command runs; denied, it does not', async () => {
  r = await realHarnessHome('codex-ask')
  const { h } = r
  const s = await setupProject(h)
  // Outside the worktree and every writable root of the builder's policy.
  const outside = join(h.home, 'outside')
  mkdirSync(outside)
  const brief = (key: string) =>
    steps(
      ['sh', `echo ${key} > ${key}.txt && git add ${key}.txt && git commit -qm ${key} && git push -q -u origin HEAD`],
      ['sh-escalated', `echo ${key} > ${outside}/${key}.txt`],
      ['sh', `printf "${key} done\\n" | svc lane report --stdin`],
    )
  for (const key of ['yes', 'no']) {
    const started = await h.svc(start(key, 'builder', brief(key)), { env: s.env })
    assert.is(started.code, 0, started.stderr)
  }
  for (const key of ['yes', 'no']) {
    const lane = `conv-r1-${key}-builder-i1`
    const v = await untilActivity(h, lane, 'needs-you (permission)', 25_000)
    assert.is(v.evidence.detail, 'command')
    assert.not.ok(existsSync(join(outside, `${key}.txt`)), 'nothing written outside while it waits')
    assert.match(
      await h.ok(['lane', 'list', '--run', 'r1']),
      new RegExp(`r1/${key} +builder +i1 +needs-you \\(permission`),
    )
    assert.ok(
      (await r.transcript(lane)).includes(
        `tool needs you (permission): $ echo ${key} > ${outside}/${key}.txt (Step 2 writes outside the sandbox)`,
      ),
      'the transcript says what it asks to run, and why',
    )
  }
  assert.is((await h.svc(['conv', 'answer', 'conv-r1-yes-builder-i1', 'allow'], { env: s.env })).code, 0)
  assert.is((await h.svc(['conv', 'answer', 'conv-r1-no-builder-i1', 'deny'], { env: s.env })).code, 0)
  for (const key of ['yes', 'no']) {
    const waited = await h.svc(['lane', 'wait', `conv-r1-${key}-builder-i1`, '--timeout', '25'], { env: s.env })
    assert.is(waited.code, 0, waited.stderr)
    assert.match(waited.stdout, `${key} done`)
    const head = gitIn(`${s.lanesRoot}/r1-${key}`, 'rev-parse', 'HEAD').trim()
    assert.is(gitIn(s.project.origin, 'rev-parse', `refs/heads/r1/${key}`).trim(), head, 'its branch is on origin')
  }
  assert.is(readFileSync(join(outside, 'yes.txt'), 'utf8'), 'yes\n', 'allowed: it ran')
  assert.not.ok(existsSync(join(outside, 'no.txt')), 'denied: it did not')
  assert.ok((await r.transcript('conv-r1-no-builder-i1')).includes(`tool $ echo no > ${outside}/no.txt → declined`))
})

test.run()
