import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { gitIn } from '../../cli/demo/sample-project.js'
import { execBrief } from '../../fixtures/model-script.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'

/** Codex lanes do their whole job from inside Codex's own sandbox: the real codex (node_modules) runs the stand-in
 * model's commands with its shell tool, so a builder really commits, pushes and reports through a login shell, a
 * critic files its verdict on that commit, and a worker on an issue files its report. (An orchestrator that launches
 * a lane from codex's sandbox and waits for it is the codex gauntlet's.) The tests share one home and project: their
 * lanes have runs and branches of their own, and none stops, kills or arms the kernel. */

const MODEL = 'gpt-5-codex'
let shared: Promise<{ r: RealHome; s: Setup }> | undefined
const home = () => (shared ??= realHarnessHome('codex-lanes').then(async (r) => ({ r, s: await setupProject(r.h) })))
test.after(async () => {
  await (await shared)?.r.stop()
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
  const { r, s } = await home()
  const { h } = r
  const started = await h.svc(
    start(
      'b',
      'builder',
      execBrief(
        // svc is on the PATH of codex's shell, and a login shell (whose profile resets PATH) finds it too.
        `type -P svc && echo work > work.txt && git add work.txt && git commit -qm work && git push -q -u origin ` +
          `HEAD && bash -lc 'printf "built work.txt\\n" | svc lane report --stdin'`,
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
        'git rev-parse HEAD > /tmp/judged-$$ && echo \'{"defects":[]}\' > /tmp/verdict-$$.json && printf "judged ' +
          '%s\\n" "$(cat /tmp/judged-$$)" | svc lane report --stdin --verdict IMPRESSED --verdict-file ' +
          '/tmp/verdict-$$.json',
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

test('a codex worker on a local issue commits, pushes and files its worker report from its sandbox; a wait on the issue gets it', async () => {
  const { r, s } = await home()
  const { h } = r
  const ref = (await h.ok(['issue', 'new', '--project', s.project.key, '--title', 'Fix the login']))
    .trim()
    .split('\n')
    .at(-1)!
  assert.is(ref, 'local:1')
  const brief = execBrief(
    `echo fix > fix.txt && git add fix.txt && git commit -qm fix && git push -q -u origin HEAD && printf "fixed the ` +
      `login\\n" | svc worker report --stdin`,
  )
  const ran = await h.svc(
    ['worker', 'run', ref, '--harness', 'codex', '--model', MODEL, '--prompt', brief, '--no-wait'],
    { env: s.env },
  )
  assert.is(ran.code, 0, ran.stderr)
  assert.match(ran.stdout, /^Worker local:1 i1: conv \d+ \(w-local-1-i1\) in /)
  const waited = await h.svc(['worker', 'wait', '--issue', ref, '--project', s.project.key, '--timeout', '25'], {
    env: s.env,
  })
  assert.is(waited.code, 0, waited.stderr)
  assert.match(waited.stdout, 'fixed the login')
  const head = gitIn(`${s.lanesRoot}/w-local-1`, 'rev-parse', 'HEAD').trim()
  assert.is(gitIn(s.project.origin, 'rev-parse', 'refs/heads/worker/local-1').trim(), head, 'its branch is on origin')
  assert.is(gitIn(s.project.checkout, 'log', '-1', '--format=%s', 'worker/local-1').trim(), 'fix')
})

test.run()
