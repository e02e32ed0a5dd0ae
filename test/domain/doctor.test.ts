import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { doctorChecks, loginFact, type DoctorFacts, type LoginFact } from '../../kernel/domain/doctor.js'

const facts = (extra: Partial<DoctorFacts> = {}): DoctorFacts => ({
  kernel: { version: '0.1.0', pid: 42, port: 4000 },
  tools: {
    claude: { path: '/usr/local/bin/claude', version: '2.0.14 (Claude Code)' },
    codex: { path: '/usr/local/bin/codex', version: 'codex-cli 0.46.0' },
    git: { path: '/usr/bin/git', version: 'git version 2.43.0' },
    lsof: { path: '/usr/bin/lsof' },
  },
  harnessesInUse: ['claude'],
  hasProc: true,
  home: { path: '/home/u/.service', writable: true },
  configPath: '/home/u/.service/projects.yaml',
  roots: [{ project: 'app', path: '/home/u/src/app-lanes', existing: '/home/u/src', writable: true }],
  badStoreFiles: [],
  ...extra,
})

test('all well: every check ok, with versions and paths', () => {
  const checks = doctorChecks(facts())
  assert.equal(
    checks.map((c) => `${c.ok ? 'ok' : 'PROBLEM'} ${c.name}: ${c.detail}`),
    [
      'ok kernel: 0.1.0 answering (pid 42, port 4000)',
      'ok claude: 2.0.14 (Claude Code) (/usr/local/bin/claude)',
      'ok codex: codex-cli 0.46.0 (/usr/local/bin/codex)',
      'ok git: git version 2.43.0 (/usr/bin/git)',
      'ok lsof: found (/usr/bin/lsof)',
      'ok service home: /home/u/.service (writable)',
      'ok lanes root of app: /home/u/src/app-lanes (will be created)',
    ],
  )
  assert.not.ok(checks.some((c) => c.fix))
})

test('a missing harness CLI is a problem when a launch may use it (claude is the default), a note otherwise', () => {
  const none = { claude: {}, codex: {}, git: { path: '/usr/bin/git', version: 'git version 2' }, lsof: {} }
  const checks = doctorChecks(facts({ tools: none }))
  const claude = checks.find((c) => c.name === 'claude')!
  assert.equal(claude, {
    name: 'claude',
    ok: false,
    detail: "not found on the kernel's PATH",
    fix:
      'install Claude Code (npm install -g @anthropic-ai/claude-code) and log in (claude, then /login), then ' +
      'restart the kernel (svc kernel stop; the next svc command starts it)',
  })
  assert.equal(
    checks.find((c) => c.name === 'codex'),
    { name: 'codex', ok: true, detail: "not found on the kernel's PATH; needed only for --harness codex" },
  )
  assert.equal(
    checks.find((c) => c.name === 'lsof'),
    {
      name: 'lsof',
      ok: true,
      detail: "not found on the kernel's PATH; not needed here: /proc gives each process its directory",
    },
  )
  const withCodex = doctorChecks(facts({ tools: none, harnessesInUse: ['claude', 'codex'], hasProc: false }))
  assert.is(withCodex.find((c) => c.name === 'codex')!.ok, false)
  assert.is(withCodex.find((c) => c.name === 'lsof')!.ok, false, 'without /proc, lsof finds the processes in a lane')
  assert.match(withCodex.find((c) => c.name === 'lsof')!.fix!, /^install lsof/)
})

test('a CLI whose --version fails is a problem; git is always needed', () => {
  const checks = doctorChecks(
    facts({ tools: { ...facts().tools, claude: { path: '/x/claude', error: 'Error: Cannot find module' }, git: {} } }),
  )
  assert.equal(
    checks.find((c) => c.name === 'claude'),
    {
      name: 'claude',
      ok: false,
      detail: '/x/claude --version failed: Error: Cannot find module',
      fix:
        'reinstall it: install Claude Code (npm install -g @anthropic-ai/claude-code) and log in (claude, then ' +
        '/login), then restart the kernel (svc kernel stop; the next svc command starts it)',
    },
  )
  assert.is(checks.find((c) => c.name === 'git')!.ok, false)
})

test('lanes roots: a broken rule, an unwritable parent, a missing checkout; an unreadable config', () => {
  const checks = doctorChecks(
    facts({
      home: { path: '/h/.service', writable: false },
      roots: [
        {
          project: 'a',
          path: '/tmp/a-lanes',
          problem: 'the lanes root /tmp/a-lanes lies under /tmp',
          existing: '/tmp',
          writable: true,
        },
        { project: 'b', path: '/home/u/b-lanes', existing: '/home/u/b-lanes', writable: false },
        { project: 'c', missingCheckout: true, path: '/home/u/gone', existing: '/home/u/gone', writable: false },
        { project: 'd', path: '/home/u/d-lanes', existing: '/home/u/d-lanes', writable: true },
      ],
    }),
  )
  assert.equal(checks.slice(5), [
    { name: 'service home', ok: false, detail: '/h/.service is not writable', fix: 'chmod u+w /h/.service' },
    {
      name: 'lanes root of a',
      ok: false,
      detail: 'the lanes root /tmp/a-lanes lies under /tmp',
      fix:
        'set a.gauntlet.lanes_root in /home/u/.service/projects.yaml to a directory under your home, outside ' +
        '/tmp, beside the checkout',
    },
    {
      name: 'lanes root of b',
      ok: false,
      detail: '/home/u/b-lanes cannot be created or written: /home/u/b-lanes is not writable',
      fix: 'chmod u+w /home/u/b-lanes, or set b.gauntlet.lanes_root in /home/u/.service/projects.yaml',
    },
    {
      name: 'project c',
      ok: false,
      detail: 'the checkout /home/u/gone does not exist',
      fix: 'correct c.path in /home/u/.service/projects.yaml',
    },
    { name: 'lanes root of d', ok: true, detail: '/home/u/d-lanes (writable)' },
  ])
  const bad = doctorChecks(facts({ configError: '/p.yaml: app.path: missing; expected string', roots: [] }))
  assert.equal(bad.at(-1), {
    name: 'projects',
    ok: false,
    detail: '/p.yaml: app.path: missing; expected string',
    fix: 'correct /home/u/.service/projects.yaml',
  })
  assert.equal(doctorChecks(facts({ roots: [] })).at(-1), {
    name: 'projects',
    ok: true,
    detail: 'none in /home/u/.service/projects.yaml; lanes need one',
  })
})

test('gh: missing or logged out is a note with its fix (only gh-linked workers need it); logged in is ok; a broken one is a problem', () => {
  const gh = (g: DoctorFacts['gh']) => doctorChecks(facts({ gh: g })).at(-1)
  assert.is(
    doctorChecks(facts()).some((c) => c.name === 'gh'),
    false,
    'no gh facts, no check',
  )
  assert.equal(gh({}), {
    name: 'gh',
    ok: true,
    note: true,
    detail: "not found on the kernel's PATH; only workers on gh: issues need it",
    fix: 'install gh (https://cli.github.com), then log in with gh auth login',
  })
  assert.equal(
    gh({
      path: '/usr/bin/gh',
      version: 'gh version 2.63.0 (2024-11-27)',
      auth: { loggedIn: false, detail: 'You are not logged into any GitHub hosts. To log in, run: gh auth login' },
    }),
    {
      name: 'gh',
      ok: true,
      note: true,
      detail:
        'gh version 2.63.0 (2024-11-27) (/usr/bin/gh); not logged in: You are not logged into any GitHub hosts. To ' +
        'log in, run: gh auth login',
      fix: 'gh auth login',
    },
  )
  assert.equal(
    gh({
      path: '/usr/bin/gh',
      version: 'gh version 2.63.0 (2024-11-27)',
      auth: { loggedIn: true, detail: 'Logged in to github.com account octo (keyring)' },
    }),
    {
      name: 'gh',
      ok: true,
      detail: 'gh version 2.63.0 (2024-11-27) (/usr/bin/gh); Logged in to github.com account octo (keyring)',
    },
  )
  assert.equal(gh({ path: '/x/gh', error: 'exec format error' }), {
    name: 'gh',
    ok: false,
    detail: '/x/gh --version failed: exec format error',
    fix: 'reinstall it: install gh (https://cli.github.com), then log in with gh auth login',
  })
})

test('each refused store file is a problem naming the file, with the fix', () => {
  const path = '/home/u/.service/agents/conv-c7/record.json'
  const checks = doctorChecks(
    facts({ badStoreFiles: [{ path, problem: 'does not hold what it should (id: expected a conversation id)' }] }),
  )
  const bad = checks.filter((c) => !c.ok)
  assert.equal(bad, [
    {
      name: 'store file',
      ok: false,
      detail: `${path} does not hold what it should (id: expected a conversation id); its conversation is left out`,
      fix: `repair ${path} or move it away, then restart the kernel (svc kernel stop)`,
    },
  ])
})

test('login status answers: claude auth status (JSON) and codex login status (text), each read to yes, no or unknown', () => {
  const table: ['claude' | 'codex', number | null, string, string, LoginFact][] = [
    [
      'claude',
      0,
      '{"loggedIn": true, "authMethod": "api_key", "apiKeySource": "ANTHROPIC_API_KEY"}',
      '',
      { state: 'yes', detail: 'api_key' },
    ],
    ['claude', 1, '{"loggedIn": false, "authMethod": "none"}', '', { state: 'no' }],
    ['claude', 1, '', "error: unknown command 'auth'", { state: 'unknown', detail: "error: unknown command 'auth'" }],
    [
      'codex',
      0,
      'Logged in using an API key - sk-proj-***ABCDE',
      '',
      { state: 'yes', detail: 'an API key - sk-proj-***ABCDE' },
    ],
    ['codex', 0, '', 'Logged in using ChatGPT', { state: 'yes', detail: 'ChatGPT' }],
    ['codex', 1, '', 'Not logged in', { state: 'no' }],
    [
      'codex',
      1,
      'WARNING: proceeding, even though we could not create PATH aliases: CODEX_HOME points to "/h/.codex", but ' +
        'that path does not exist',
      'Not logged in',
      { state: 'no' },
    ],
    [
      'codex',
      2,
      '',
      "error: unrecognized subcommand 'status'",
      { state: 'unknown', detail: "error: unrecognized subcommand 'status'" },
    ],
    ['codex', null, '', '', { state: 'unknown', detail: 'exit code null' }],
  ]
  for (const [tool, code, stdout, stderr, want] of table)
    assert.equal(loginFact(tool, { code, stdout, stderr }), want, `${tool} ${stdout}${stderr}`)
})

test('a harness CLI not logged in is a problem with the exact fix when a launch may use it, a note otherwise; logged in and unknown say so', () => {
  const tools = (claude: LoginFact, codex: LoginFact) => ({
    ...facts().tools,
    claude: { ...facts().tools.claude, login: claude },
    codex: { ...facts().tools.codex, login: codex },
  })
  const out = doctorChecks(facts({ tools: tools({ state: 'no' }, { state: 'no' }) }))
  assert.equal(
    out.find((c) => c.name === 'claude'),
    {
      name: 'claude',
      ok: false,
      detail: '2.0.14 (Claude Code) (/usr/local/bin/claude); not logged in',
      fix: 'log in: run claude, then /login (or give the kernel ANTHROPIC_API_KEY and restart it: svc kernel stop)',
    },
  )
  assert.equal(
    out.find((c) => c.name === 'codex'),
    {
      name: 'codex',
      ok: true,
      detail: 'codex-cli 0.46.0 (/usr/local/bin/codex); not logged in; needed only for --harness codex',
    },
  )
  const used = doctorChecks(
    facts({ tools: tools({ state: 'yes', detail: 'api_key' }, { state: 'no' }), harnessesInUse: ['claude', 'codex'] }),
  )
  assert.equal(
    used.find((c) => c.name === 'claude'),
    { name: 'claude', ok: true, detail: '2.0.14 (Claude Code) (/usr/local/bin/claude); logged in (api_key)' },
  )
  assert.equal(
    used.find((c) => c.name === 'codex'),
    {
      name: 'codex',
      ok: false,
      detail: 'codex-cli 0.46.0 (/usr/local/bin/codex); not logged in',
      fix: 'log in: codex login (or printenv OPENAI_API_KEY | codex login --with-api-key)',
    },
  )
  const unknown = doctorChecks(
    facts({ tools: tools({ state: 'unknown', detail: 'no status command' }, { state: 'yes' }) }),
  )
  assert.equal(
    unknown.find((c) => c.name === 'claude')!.detail,
    '2.0.14 (Claude Code) (/usr/local/bin/claude); logged in: unknown (no status command)',
  )
  assert.is(unknown.find((c) => c.name === 'codex')!.detail, 'codex-cli 0.46.0 (/usr/local/bin/codex); logged in')
})

test('notify: no check without a block; a valid block says where notifications go; a bad one is a problem with its fix, before gh', () => {
  const path = '/home/u/.service/notify.yaml'
  assert.is(
    doctorChecks(facts({ notify: { path } })).some((c) => c.name === 'notify'),
    false,
    'no block, no check',
  )
  const on = doctorChecks(facts({ notify: { path, config: { webhook: { url: 'https://hooks.example.com/s3cret' } } } }))
  assert.equal(
    on.find((c) => c.name === 'notify'),
    { name: 'notify', ok: true, detail: 'webhook to https://hooks.example.com (needs-you, report)' },
  )
  const problem = `${path}: webhook.url: an http:// or https:// URL`
  const off = doctorChecks(
    facts({
      notify: { path, problem },
      gh: { path: '/bin/gh', version: 'gh 2', auth: { loggedIn: true, detail: 'in' } },
    }),
  )
  assert.equal(off.at(-2), {
    name: 'notify',
    ok: false,
    detail: `${problem}; notifications are off`,
    fix: `correct ${path} (README, Notifications)`,
  })
  assert.is(off.at(-1)!.name, 'gh')
})

test.run()

test('permissions: one ok line per project and role, last, in its harness terms; a shell role has no checks to show', () => {
  const checks = doctorChecks(
    facts({
      badStoreFiles: [{ path: '/s/conv-x.json', problem: 'is not JSON' }],
      policies: [
        { project: 'app', role: 'builder', harness: 'claude', mode: 'worktree', detail: 'edits' },
        { project: 'app', role: 'play', harness: 'shell', mode: 'worktree' },
      ],
    }),
  )
  assert.equal(
    checks.slice(-3).map((c) => `${c.ok ? 'ok' : 'PROBLEM'} ${c.name}: ${c.detail}`),
    [
      'PROBLEM store file: /s/conv-x.json is not JSON; its conversation is left out',
      'ok permissions app/builder: worktree on claude: edits',
      'ok permissions app/play: worktree on shell: the shell harness runs its brief as given (no permission checks)',
    ],
  )
})

test('lane isolation: a PID namespace per lane is said, and where it is made; its absence names what it leaves open', () => {
  const line = (n: DoctorFacts['lanePidNamespace']) =>
    doctorChecks(facts({ lanePidNamespace: n })).find((c) => c.name === 'lane isolation')
  assert.equal(line({ ok: true, userNamespace: false }), {
    name: 'lane isolation',
    ok: true,
    detail: 'each lane runs in a PID namespace of its own: none of its processes outlives its runner',
  })
  assert.equal(line({ ok: true, userNamespace: true }), {
    name: 'lane isolation',
    ok: true,
    detail:
      'each lane runs in a PID namespace of its own (inside a user namespace of its own: the kernel does not run as ' +
      'root): none of its processes outlives its runner',
  })
  assert.equal(
    line({ ok: true, userNamespace: true, procProblem: "the lane sees the machine's /proc: Permission denied" }),
    {
      name: 'lane isolation',
      ok: true,
      note: true,
      detail:
        'each lane runs in a PID namespace of its own (inside a user namespace of its own: the kernel does not run ' +
        "as root): none of its processes outlives its runner; but its harness sees the machine's /proc (the lane " +
        "sees the machine's /proc: Permission denied), where a sandbox inside the lane may hang",
    },
  )
  assert.equal(line({ ok: false, userNamespace: true, problem: 'no user namespace: No space left on device' }), {
    name: 'lane isolation',
    ok: true,
    note: true,
    detail:
      'lanes run without a PID namespace of their own (no user namespace: No space left on device): a lane process ' +
      'that leaves its process group and session and then kills its runner counts as the person',
    fix:
      'turn on user namespaces for users (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone), or run ' +
      'the kernel as root, to give each lane a PID namespace of its own',
  })
  assert.equal(line({ ok: false, userNamespace: false, problem: 'perl not found' }), {
    name: 'lane isolation',
    ok: true,
    note: true,
    detail:
      'lanes run without a PID namespace of their own (perl not found): a lane process that ' +
      'leaves its process group and session and then kills its runner counts as the person',
    fix: 'run the kernel as root to give each lane a PID namespace of its own',
  })
  assert.not.ok(
    doctorChecks(facts()).some((c) => c.name === 'lane isolation'),
    'no line without the fact',
  )
})
