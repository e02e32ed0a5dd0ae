import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { TestHome, alive, git, until } from '../helpers/home.js'
import { realCliBin, realVersion } from '../helpers/real-harness.js'
import { setupProject } from '../helpers/project.js'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import type { FakeGhState } from '../../fixtures/fake-gh.js'
import { GH_BIN, ghEnv } from '../helpers/gh.js'

/** `svc doctor` run against a real kernel and the real harness CLIs (node_modules): the checks come from the kernel's
 * own PATH and environment (the ones harnesses get). */

let h: TestHome
/** The real claude logged in through an API key (the stand-in's), so that only gh can make a problem or a note. */
const loggedInClaude = (t: TestHome) => ({
  ANTHROPIC_API_KEY: 'sk-standin',
  CLAUDE_CONFIG_DIR: join(t.home, '.claude'),
  OPENAI_API_KEY: '',
})
test.before.each(() => {
  h = new TestHome('doctor')
  // The checks are the kernel's (its PATH and environment); the person's `svc doctor` only prints them, so it runs
  // the CLI's dispatch in this process, with the output and exit code a program of its own gives.
  h.inProcess = true
})
test.after.each(async () => {
  await h.stop()
})

test('all well: the real harness CLIs with their versions and login status, git, the home and the lanes root; exit 0', async () => {
  const bin = realCliBin(h)
  h.extraEnv = {
    PATH: `${bin}:${process.env.PATH}`,
    ANTHROPIC_API_KEY: 'sk-standin',
    CLAUDE_CONFIG_DIR: join(h.home, '.claude'),
    OPENAI_API_KEY: '',
  }
  const s = await setupProject(h)
  const r = await h.svc(['doctor'])
  assert.is(r.code, 0, r.stdout + r.stderr)
  assert.is(r.stderr, '')
  const lines = r.stdout.split('\n')
  const k = h.kernelFile()!
  assert.is(lines[0], `ok       kernel: 0.1.0 answering (pid ${k.pid}, port ${k.port})`)
  assert.is(
    lines[1],
    `ok       claude: ${realVersion('@anthropic-ai/claude-code')} (Claude Code) (${bin}/claude); logged in (api_key)`,
  )
  assert.is(
    lines[2],
    `ok       codex: codex-cli ${realVersion('@openai/codex')} (${bin}/codex); not logged in; needed only for ` +
      `--harness codex`,
  )
  assert.match(lines[3], /^ok {7}git: git version \d/)
  assert.match(lines[4], /^ok {7}lsof: /)
  assert.is(lines[5], `ok       service home: ${h.service} (writable)`)
  assert.is(
    lines[6],
    'ok       lane isolation: each lane runs in a PID namespace of its own: none of its processes outlives its runner',
  )
  assert.is(lines[7], `ok       lanes root of ${s.project.key}: ${s.lanesRoot} (will be created)`)
  assert.match(lines[8], /^(ok|note) +gh: /)
  assert.ok(
    lines.includes(
      `ok       permissions ${s.project.key}/builder: worktree on shell: the shell harness runs its brief as given ` +
        `(no permission checks)`,
    ),
  )
  const checkLines = lines.filter((l) => /^\S/.test(l))
  assert.is(checkLines.length, 14, 'one line per check (a fix goes on the line below), and one per role')
})

test("each role's permission policy, in its harness's own terms: the default, added rules, ask and full", async () => {
  h.extraEnv = loggedInClaude(h)
  const s = await setupProject(h)
  writeProjectsYaml(h.service, s.project, {
    gauntlet: {
      roles: {
        builder: { harness: 'claude', permissions: { allow: ['Bash(npm test:*)'], writable: ['/var/cache/build'] } },
        critic: { harness: 'codex' },
        verifier: { harness: 'codex', permissions: { mode: 'ask' } },
        orchestrator: { harness: 'claude', permissions: { mode: 'full' } },
      },
    },
  })
  const out = await h.svc(['doctor'])
  const policy = out.stdout.split('\n').filter((l) => l.includes(' permissions '))
  const git =
    'Bash(git status:*), Bash(git diff:*), Bash(git log:*), Bash(git show:*), Bash(git add:*), Bash(git commit:*), ' +
    'Bash(git push -u origin HEAD), Bash(git push origin HEAD), Bash(git push)'
  const k = s.project.key
  assert.equal(policy, [
    `ok       permissions ${k}/builder: worktree on claude: --permission-mode acceptEdits; unasked: ${git}, ` +
      `Bash(svc:*), Bash(npm test:*); also edits /var/cache/build`,
    `ok       permissions ${k}/critic: worktree on codex: sandbox workspace-write; network on (svc reaches the ` +
      `kernel); writes its directory, <worktree git dir>, <git common dir>/objects, <git common dir>/refs, <git ` +
      `common dir>/logs; anything else asks`,
    `ok       permissions ${k}/verifier: ask on codex: sandbox workspace-write; network on (svc reaches the ` +
      `kernel); writes its directory; anything else asks`,
    `ok       permissions ${k}/play: worktree on claude: --permission-mode acceptEdits; unasked: nothing more`,
    `ok       permissions ${k}/orchestrator: full on claude: --permission-mode bypassPermissions; nothing asks`,
  ])

  writeProjectsYaml(h.service, s.project, {
    gauntlet: { roles: { builder: { permissions: { mode: 'open' } } } } as any,
  })
  const bad = await h.svc(['doctor'])
  assert.is(bad.code, 1)
  assert.match(
    bad.stdout,
    `PROBLEM  projects: ${h.service}/projects.yaml: ${k}.gauntlet.roles.builder.permissions.mode: `,
  )
})

test('claude installed but not logged in: a problem, the exact fix on the next line, exit 1', async () => {
  const bin = realCliBin(h)
  h.extraEnv = {
    PATH: `${bin}:${process.env.PATH}`,
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_AUTH_TOKEN: '',
    CLAUDE_CONFIG_DIR: join(h.home, '.claude'),
    OPENAI_API_KEY: '',
  }
  const r = await h.svc(['doctor'])
  assert.is(r.code, 1)
  assert.is(r.stderr, 'svc: doctor found 1 problem\n')
  assert.match(
    r.stdout,
    `\nPROBLEM  claude: ${realVersion('@anthropic-ai/claude-code')} (Claude Code) (${bin}/claude); not logged in\n  ` +
      `       fix: log in: run claude, then /login (or give the kernel ANTHROPIC_API_KEY and restart it: svc kernel ` +
      `stop)\n`,
  )
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
    "PROBLEM  claude: not found on the kernel's PATH\n         fix: install Claude Code (npm install -g " +
      '@anthropic-ai/claude-code) and log in (claude, then /login), then restart the kernel (svc kernel stop; the ' +
      'next svc command starts it)\n',
  )
  assert.match(r.stdout, "ok       codex: not found on the kernel's PATH; needed only for --harness codex\n")
  assert.match(
    r.stdout,
    `PROBLEM  lanes root of ${s.project.key}: the lanes root /tmp/svc-doctor-lanes lies under /tmp\n         fix: ` +
      `set ${s.project.key}.gauntlet.lanes_root in ${h.service}/projects.yaml to a directory under your home, ` +
      `outside /tmp, beside the checkout\n`,
  )
})

test('gh: its version and login; missing or logged out is a note with the exact fix on a second line, never a problem', async () => {
  const state = join(h.home, 'gh.json')
  const write = (s: FakeGhState) => writeFileSync(state, JSON.stringify(s))
  write({ loggedIn: false, repos: {} })
  h.extraEnv = { ...loggedInClaude(h), ...ghEnv(state), PATH: `${realCliBin(h)}:${GH_BIN}:${process.env.PATH}` }
  await setupProject(h)
  const out = await h.svc(['doctor'])
  assert.is(out.code, 0, out.stdout + out.stderr)
  assert.match(
    out.stdout,
    `note     gh: gh version 2.63.0 (2024-11-27) (${GH_BIN}/gh); not logged in: You are not logged into any GitHub ` +
      `hosts. To log in, run: gh auth login\n         fix: gh auth login\n`,
  )
  write({ loggedIn: true, account: 'octo', repos: {} })
  const ok = await h.svc(['doctor'])
  assert.is(ok.code, 0)
  assert.is(
    ok.stdout.split('\n').find((l) => l.startsWith('ok       gh:')),
    `ok       gh: gh version 2.63.0 (2024-11-27) (${GH_BIN}/gh); Logged in to github.com account octo (keyring)`,
  )
  // The checks as JSON: no problem, one check per line of the text, one per role among them.
  const json = JSON.parse(await h.ok(['doctor', '--json']))
  assert.is(json.problems, 0)
  assert.is(json.checks.length, ok.stdout.split('\n').filter((l) => /^\S/.test(l)).length)
  assert.is(json.checks.length, 14)
  assert.equal(
    json.checks.find((c: { name: string }) => c.name === 'gh'),
    {
      name: 'gh',
      ok: true,
      detail: `gh version 2.63.0 (2024-11-27) (${GH_BIN}/gh); Logged in to github.com account octo (keyring)`,
    },
  )
})

test('gh not found: a note saying which workers need it, with how to install it', async () => {
  h.extraEnv = {
    ...loggedInClaude(h),
    PATH: `${realCliBin(h)}:${[dirname(process.execPath), '/usr/bin', '/bin'].join(':')}`,
  }
  await setupProject(h)
  const r = await h.svc(['doctor'])
  assert.is(r.code, 0, r.stdout + r.stderr)
  assert.match(
    r.stdout,
    "note     gh: not found on the kernel's PATH; only workers on gh: issues need it\n         fix: install gh " +
      '(https://cli.github.com), then log in with gh auth login\n',
  )
})

test('a launch cut short whose worktree was then changed is reported with its exact fix; with the fix done, the launch succeeds', async () => {
  const tools = { ...loggedInClaude(h), PATH: `${realCliBin(h)}:${process.env.PATH}` }
  h.extraEnv = tools
  const s = await setupProject(h)
  const k = h.kernelFile()!
  await h.ok(['kernel', 'stop'])
  await until(() => !alive(k.pid), 'the kernel stopped')
  // The next kernel kills itself just after the worktree is added, before the lane's record is written.
  h.extraEnv = { ...tools, SERVICE_TEST_BUILD: '1', SERVICE_FAULT_KILL_AT: 'launch-worktree' }
  const args = [
    'lane',
    'start',
    '--run',
    'r1',
    '--key',
    'b',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'x',
    '--no-wait',
  ]
  assert.is.not((await h.svc(args, { env: s.env })).code, 0)
  const killed = h.kernelFile()!
  await until(() => !alive(killed.pid), 'the kernel killed during the launch')
  h.extraEnv = tools
  const dir = join(s.lanesRoot, 'r1-b')
  const checkout = s.project.checkout
  writeFileSync(join(dir, 'notes.txt'), 'written into the orphan\n')

  const detail = `an interrupted launch left ${dir}: a worktree no lane record claims, with changes (1 path)`
  const fix =
    `keep what you need from it, then run: git -C ${checkout} worktree remove --force ${dir} && git -C ` +
    `${checkout} branch -D r1/b`
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
