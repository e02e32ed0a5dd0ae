import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ROOT, TestHome, alive, git, until } from '../helpers/home.js'
import { setupProject } from '../helpers/project.js'
import { writeProjectsYaml } from '../../fixtures/sample-project.js'

/** `svc doctor` run against a real kernel: the checks come from the kernel's own PATH (the one harnesses get). */

const BIN = join(ROOT, 'fixtures', 'bin')

let h: TestHome
test.before.each(() => {
  h = new TestHome('doctor')
})
test.after.each(async () => {
  await h.stop()
})

test('all well: harness CLIs with their versions, git, the home and the lanes root; exit 0', async () => {
  h.extraEnv = { PATH: `${BIN}:${process.env.PATH}`, FAKE_NODE: process.execPath }
  const s = await setupProject(h)
  const r = await h.svc(['doctor'])
  assert.is(r.code, 0, r.stdout + r.stderr)
  assert.is(r.stderr, '')
  const lines = r.stdout.split('\n')
  const k = h.kernelFile()!
  assert.is(lines[0], `ok       kernel: 0.1.0 answering (pid ${k.pid}, port ${k.port})`)
  assert.is(lines[1], `ok       claude: 2.0.14 (Claude Code) (${BIN}/claude)`)
  assert.is(lines[2], `ok       codex: codex-cli 0.46.0 (${BIN}/codex)`)
  assert.match(lines[3], /^ok {7}git: git version \d/)
  assert.match(lines[4], /^ok {7}lsof: /)
  assert.is(lines[5], `ok       service home: ${h.service} (writable)`)
  assert.is(lines[6], `ok       lanes root of ${s.project.key}: ${s.lanesRoot} (will be created)`)
  const json = JSON.parse((await h.ok(['doctor', '--json'])).toString())
  assert.is(json.problems, 0)
  assert.is(json.checks.length, 7)
})

test('problems: no claude on the PATH, a lanes root under /tmp; each with its fix, exit 1', async () => {
  h.extraEnv = { PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':') }
  const s = await setupProject(h)
  writeProjectsYaml(h.service, s.project, { gauntlet: { lanes_root: '/tmp/svc-doctor-lanes' } })
  const r = await h.svc(['doctor'])
  assert.is(r.code, 1)
  assert.is(r.stderr, 'svc: doctor found 2 problems\n')
  assert.match(
    r.stdout,
    "PROBLEM  claude: not found on the kernel's PATH\n         fix: install Claude Code (npm install -g @anthropic-ai/claude-code) and log in (claude, then /login), then restart the kernel (svc kernel stop; the next svc command starts it)\n",
  )
  assert.match(r.stdout, "ok       codex: not found on the kernel's PATH; needed only for --harness codex\n")
  assert.match(
    r.stdout,
    `PROBLEM  lanes root of ${s.project.key}: the lanes root /tmp/svc-doctor-lanes lies under /tmp\n         fix: set ${s.project.key}.gauntlet.lanes_root in ${h.service}/projects.yaml to a directory under your home, outside /tmp, beside the checkout\n`,
  )
})

test('issue 16 item 3: a launch cut short whose worktree was then changed is reported with its exact fix; with the fix done, the launch succeeds', async () => {
  const tools = { PATH: `${BIN}:${process.env.PATH}`, FAKE_NODE: process.execPath }
  h.extraEnv = tools
  const s = await setupProject(h)
  const k = h.kernelFile()!
  await h.ok(['kernel', 'stop'])
  await until(() => !alive(k.pid), 'the kernel stopped')
  // The next kernel kills itself just after the worktree is added, before the lane's record is written.
  h.extraEnv = { ...tools, SERVICE_TEST_BUILD: '1', SERVICE_FAULT_KILL_AT: 'launch-worktree' }
  const args = ['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait']
  assert.is.not((await h.svc(args, { env: s.env })).code, 0)
  const killed = h.kernelFile()!
  await until(() => !alive(killed.pid), 'the kernel killed during the launch')
  h.extraEnv = tools
  const dir = join(s.lanesRoot, 'r1-b')
  const checkout = s.project.checkout
  writeFileSync(join(dir, 'notes.txt'), 'written into the orphan\n')

  const detail = `an interrupted launch left ${dir}: a worktree no lane record claims, with changes (1 path)`
  const fix = `keep what you need from it, then run: git -C ${checkout} worktree remove --force ${dir} && git -C ${checkout} branch -D r1/b`
  const r = await h.svc(['doctor'])
  assert.is(r.code, 1, r.stdout + r.stderr)
  assert.is(r.stderr, 'svc: doctor found 1 problem\n')
  assert.match(r.stdout, `PROBLEM  interrupted launch: ${detail}\n         fix: ${fix}\n`)
  assert.equal(await h.svc(args, { env: s.env }), { code: 1, stdout: '', stderr: `svc: refused: ${detail}; ${fix}\n` })
  assert.is(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'written into the orphan\n', 'nothing of it was removed')

  git(checkout, 'worktree', 'remove', '--force', dir)
  git(checkout, 'branch', '-D', 'r1/b')
  assert.is((await h.svc(['doctor'])).code, 0)
  const again = await h.svc(args, { env: s.env })
  assert.is(again.code, 0, again.stderr)
  assert.ok(existsSync(join(dir, 'README.md')))
})

test.run()
