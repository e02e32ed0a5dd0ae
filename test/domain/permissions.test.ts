import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  GIT_PLACES_NAMED,
  GIT_RULES,
  SVC_RULE,
  claudePermissionArgs,
  CODEX_APPROVAL_POLICY,
  codexPermissionArgs,
  describePermissions,
  effectivePermissions,
  type PermissionFacts,
} from '../../kernel/domain/permissions.js'

// gauntlet.roles.<role>.permissions mapped to each harness's own mechanism: Claude Code's permission mode and allow
// rules, Codex's sandbox, its network and its writable roots. One row per case.

const GIT = { gitDir: '/r/.git/worktrees/r1-b', commonDir: '/r/.git', localRemote: '/o.git' }
const GIT_ROOTS = ['/r/.git/worktrees/r1-b', '/r/.git/objects', '/r/.git/refs', '/r/.git/logs', '/o.git']

test('effectivePermissions: per role and mode, what each harness may do unasked', () => {
  const rows: [string, PermissionFacts, string, string[], string, boolean, string[], boolean][] = [
    // name, facts, claude mode, claude allow, codex sandbox, network, writable roots, upstream beforehand
    [
      'builder, default',
      { role: 'builder', serviced: true, git: GIT },
      'acceptEdits',
      [...GIT_RULES, SVC_RULE],
      'workspace-write',
      true,
      GIT_ROOTS,
      true,
    ],
    [
      'critic, default: git to read, its own git dir to write, no upstream to record',
      { role: 'critic', serviced: true, git: GIT },
      'acceptEdits',
      [...GIT_RULES, SVC_RULE],
      'workspace-write',
      true,
      GIT_ROOTS,
      false,
    ],
    [
      'builder outside git (no places known)',
      { role: 'builder', serviced: true },
      'acceptEdits',
      [...GIT_RULES, SVC_RULE],
      'workspace-write',
      true,
      [],
      false,
    ],
    [
      'builder, extra rules and a writable directory',
      { role: 'builder', serviced: true, git: GIT, config: { allow: ['Bash(npm test:*)'], writable: ['/cache'] } },
      'acceptEdits',
      [...GIT_RULES, SVC_RULE, 'Bash(npm test:*)'],
      'workspace-write',
      true,
      [...GIT_ROOTS, '/cache'],
      true,
    ],
    [
      'builder, ask: only svc unasked, git read-only',
      { role: 'builder', serviced: true, git: GIT, config: { mode: 'ask' } },
      'default',
      [SVC_RULE],
      'workspace-write',
      true,
      [],
      false,
    ],
    [
      'builder, full',
      { role: 'builder', serviced: true, git: GIT, config: { mode: 'full', allow: ['Bash(x)'] } },
      'bypassPermissions',
      [],
      'danger-full-access',
      true,
      [],
      false,
    ],
    [
      'play: no service context, no git',
      { role: 'play', serviced: false, git: GIT },
      'acceptEdits',
      [],
      'workspace-write',
      false,
      [],
      false,
    ],
    [
      'a conversation that is no lane (asked as ask)',
      { serviced: true, git: GIT, config: { mode: 'ask' } },
      'default',
      [SVC_RULE],
      'workspace-write',
      true,
      [],
      false,
    ],
    [
      'a rule given twice is listed once',
      { role: 'orchestrator', serviced: true, config: { allow: [SVC_RULE, 'Bash(make:*)', 'Bash(make:*)'] } },
      'acceptEdits',
      [...GIT_RULES, SVC_RULE, 'Bash(make:*)'],
      'workspace-write',
      true,
      [],
      false,
    ],
  ]
  for (const [name, facts, claudeMode, allow, sandbox, network, roots, upstream] of rows) {
    const p = effectivePermissions(facts)
    assert.equal(
      [p.claude.permissionMode, p.claude.allow, p.codex.sandbox, p.codex.network, p.codex.writableRoots],
      [claudeMode, allow, sandbox, network, roots],
      name,
    )
    assert.is(p.codex.upstreamBeforehand, upstream, `${name}: upstream`)
  }
})

test('the policy as flags: claude takes its rules as settings JSON; codex never runs a login shell and asks for what its sandbox refuses', () => {
  const p = effectivePermissions({ role: 'builder', serviced: true, git: GIT, config: { writable: ['/c'] } })
  assert.equal(claudePermissionArgs(p.claude), [
    '--permission-mode',
    'acceptEdits',
    '--settings',
    JSON.stringify({ permissions: { allow: [...GIT_RULES, SVC_RULE] } }),
    '--add-dir',
    '/c',
  ])
  assert.equal(codexPermissionArgs(p.codex), [
    '-c',
    'sandbox_mode="workspace-write"',
    '-c',
    'allow_login_shell=false',
    '-c',
    CODEX_APPROVAL_POLICY,
    '-c',
    'sandbox_workspace_write.network_access=true',
    '-c',
    `sandbox_workspace_write.writable_roots=[${[...GIT_ROOTS, '/c'].map((d) => JSON.stringify(d)).join(',')}]`,
  ])
  const play = effectivePermissions({ role: 'play', serviced: false })
  assert.equal(claudePermissionArgs(play.claude), ['--permission-mode', 'acceptEdits'])
  const sandboxed = [
    '-c',
    'sandbox_mode="workspace-write"',
    '-c',
    'allow_login_shell=false',
    '-c',
    CODEX_APPROVAL_POLICY,
  ]
  assert.equal(codexPermissionArgs(play.codex), sandboxed)
  assert.equal(codexPermissionArgs(undefined), sandboxed, 'no policy: the workspace sandbox, asking')
  const ask = effectivePermissions({ serviced: true, config: { mode: 'ask' } })
  assert.equal(
    claudePermissionArgs(ask.claude),
    ['--settings', JSON.stringify({ permissions: { allow: [SVC_RULE] } })],
    "ask: the mode is the user's own settings'",
  )
  const full = effectivePermissions({ role: 'builder', serviced: true, config: { mode: 'full' } })
  assert.equal(claudePermissionArgs(full.claude), ['--permission-mode', 'bypassPermissions'])
  assert.equal(codexPermissionArgs(full.codex), [
    '-c',
    'sandbox_mode="danger-full-access"',
    '-c',
    'allow_login_shell=false',
    '-c',
    'approval_policy="never"',
  ])
})

test('describePermissions: one line per harness, as svc doctor shows it', () => {
  const d = describePermissions(effectivePermissions({ role: 'builder', serviced: true, git: GIT_PLACES_NAMED }))
  assert.is(d.claude, `--permission-mode acceptEdits; unasked: ${[...GIT_RULES, SVC_RULE].join(', ')}`)
  assert.is(
    d.codex,
    'sandbox workspace-write; network on (svc reaches the kernel); writes its directory, <worktree git dir>, <git ' +
      'common dir>/objects, <git common dir>/refs, <git common dir>/logs; anything else asks',
  )
  const ask = describePermissions(effectivePermissions({ role: 'critic', serviced: true, config: { mode: 'ask' } }))
  assert.is(ask.claude, `--permission-mode default; unasked: ${SVC_RULE}`)
  assert.is(
    ask.codex,
    'sandbox workspace-write; network on (svc reaches the kernel); writes its directory; anything else asks',
  )
  const full = describePermissions(effectivePermissions({ role: 'builder', serviced: true, config: { mode: 'full' } }))
  assert.equal(full, {
    claude: '--permission-mode bypassPermissions; nothing asks',
    codex: 'sandbox danger-full-access: no sandbox',
  })
})

test.run()
