import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { loadStream } from '../../fixtures/streams.js'
import type { LaunchSpec, RunnerState } from '../../kernel/domain/runner-state.js'
import { claudeAdapter, permissionResponse, userLine } from '../../kernel/io/harness/claude.js'
import { freshState, launchSpec, NOW, replay } from '../helpers/replay.js'

const spec = (extra: Partial<LaunchSpec> = {}) => launchSpec({ harness: 'claude', ...extra })
const working = (): RunnerState => ({ ...freshState(), phase: { value: 'working', source: 'test', at: NOW } })
const exit = (
  code: number | null,
  extra: Partial<{ signal: string | null; stopping: boolean; stderrTail: string[] }> = {},
) => ({ code, signal: null, stopping: false, stderrTail: [], ...extra })

// ---- launch ----

test('buildLaunch of a play lane: project settings (and their CLAUDE.md) are not loaded', () => {
  const plan = claudeAdapter.buildLaunch(
    spec({ play: true, model: 'claude-test-1', session: '0b5c3d4e-1111-4222-8333-944445555666', firstMessage: 'play' }),
  )
  assert.equal(plan.args.slice(-4), ['--permission-prompt-tool', 'stdio', '--setting-sources', 'user'])
  assert.equal(claudeAdapter.buildLaunch(spec()).args.includes('--setting-sources'), false)
})

test('buildLaunch: the harness does not inherit CLAUDECODE; stdin stays open for further messages', () => {
  const plan = claudeAdapter.buildLaunch(spec({ firstMessage: 'x' }))
  assert.equal(plan.unsetEnv, ['CLAUDECODE'])
  assert.is(plan.stdin, 'keep-open')
  assert.is(plan.notes, undefined)
})

test('started without a first message is idle: the CLI waits for one', () => {
  assert.is(claudeAdapter.started(NOW, spec()).state?.phase?.value, 'idle')
  assert.is(claudeAdapter.started(NOW, spec({ firstMessage: 'go' })).state?.phase?.value, 'working')
})

// ---- the recorded session with a permission, a question and a plan ----

test('asks: working → needs-you (permission) → working → needs-you (question) → working → needs-you (plan) → working → idle', () => {
  const answers = [
    { decision: 'allow' as const },
    { decision: 'allow' as const, message: 'Postgres' },
    { decision: 'deny' as const, message: 'smaller steps, please' },
  ]
  const r = replay(claudeAdapter, loadStream('claude', 'asks'), { answer: () => answers.shift()! })
  assert.equal(r.phases, [
    'working',
    'needs-you:permission',
    'working',
    'needs-you:question',
    'working',
    'needs-you:plan',
    'working',
    'idle',
  ])
  assert.is(r.state.model, 'claude-test-1')
  assert.is(r.state.session, 'sess-1')
  assert.equal(r.state.cost, { usd: 0.0587, estimated: false })
  assert.is(r.state.turns, 1)
  assert.is(r.state.pending, undefined)
  assert.equal(r.stdin, [
    {
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: '1f6c0e9a-perm',
        response: {
          behavior: 'allow',
          updatedInput: { command: 'rm -rf build', description: 'Remove the stale build directory' },
        },
      },
    },
    {
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: '2a7d1fb0-question',
        response: {
          behavior: 'allow',
          updatedInput: {
            questions: [
              {
                question: 'Which database should the new service use?',
                header: 'Database',
                options: [
                  { label: 'Postgres', description: "The team's default" },
                  { label: 'SQLite', description: 'One file, no server' },
                ],
                multiSelect: false,
              },
            ],
            answers: { 'Which database should the new service use?': 'Postgres' },
          },
        },
      },
    },
    {
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: '3b8e20c1-plan',
        response: { behavior: 'deny', message: 'smaller steps, please' },
      },
    },
  ])
  const text = r.transcript.map((l) => `${l.kind} ${l.text}`)
  assert.ok(text.includes('tool needs you (permission): Bash'))
  assert.ok(text.includes('user allow (question: AskUserQuestion): Postgres'))
  assert.ok(text.includes('tool tool error: smaller steps, please'), 'the denial reaches the model as the tool result')
  assert.ok(text.includes('assistant Answers received: allow, allow, deny.'))
})

test('each needs-you keeps the pending request with its input, and says where it came from', () => {
  const seen: NonNullable<RunnerState['pending']>[] = []
  const r = replay(claudeAdapter, loadStream('claude', 'asks'), {
    answer: (p) => (seen.push(p), { decision: 'allow', message: p.kind === 'question' ? 'SQLite' : undefined }),
  })
  assert.equal(
    seen.map((p) => [p.id, p.kind, p.tool]),
    [
      ['1f6c0e9a-perm', 'permission', 'Bash'],
      ['2a7d1fb0-question', 'question', 'AskUserQuestion'],
      ['3b8e20c1-plan', 'plan', 'ExitPlanMode'],
    ],
  )
  assert.equal(seen[2].input, { plan: '1. Add the storage module\n2. Migrate the schema\n3. Run the test suite' })
  const needs = r.reductions.map((x) => x.state?.phase).filter((p) => p?.value === 'needs-you')
  assert.equal(
    needs.map((p) => [p!.source, p!.detail]),
    [
      ['stream: can_use_tool', 'Bash'],
      ['stream: can_use_tool', 'AskUserQuestion'],
      ['stream: can_use_tool', 'ExitPlanMode'],
    ],
  )
  assert.ok(r.reductions.some((x) => x.state?.phase?.source === 'answer: allow'))
})

test('permissionResponse: a denial without a reason gets one per kind; an allow without a message keeps the input', () => {
  const p = (kind: 'permission' | 'question' | 'plan') => ({ id: 'r', kind, tool: 'T', input: { a: 1 }, at: NOW })
  assert.equal(permissionResponse(p('permission'), { id: 'r', decision: 'deny' }), {
    behavior: 'deny',
    message: 'The user denied this tool use.',
  })
  assert.equal(permissionResponse(p('question'), { id: 'r', decision: 'deny' }), {
    behavior: 'deny',
    message: 'The user declined to answer.',
  })
  assert.equal(permissionResponse(p('plan'), { id: 'r', decision: 'deny' }), {
    behavior: 'deny',
    message: 'The user rejected the plan.',
  })
  assert.equal(permissionResponse(p('plan'), { id: 'r', decision: 'allow' }), {
    behavior: 'allow',
    updatedInput: { a: 1 },
  })
})

test('an answer to a request the harness no longer waits on is ignored, with a transcript line', () => {
  const state: RunnerState = { ...freshState(), pending: { id: 'req-2', kind: 'permission', tool: 'Bash', at: NOW } }
  const r = claudeAdapter.answer!({ id: 'req-1', decision: 'allow' }, state, NOW)
  assert.is(r.stdin, undefined)
  assert.is(r.state, undefined)
  assert.equal(r.transcript, [
    { kind: 'system', text: 'answer allow to request req-1 ignored: the harness no longer waits on it' },
  ])
})

test('control_cancel_request withdraws the pending request: working again', () => {
  const state: RunnerState = {
    ...freshState(),
    pending: { id: 'req-9', kind: 'question', tool: 'AskUserQuestion', at: NOW },
  }
  const r = claudeAdapter.stdoutLine(
    JSON.stringify({ type: 'control_cancel_request', request_id: 'req-9' }),
    state,
    NOW,
  )
  assert.ok(r.state && 'pending' in r.state && r.state.pending === undefined)
  assert.is(r.state?.phase?.value, 'working')
  assert.equal(
    claudeAdapter.stdoutLine(JSON.stringify({ type: 'control_cancel_request', request_id: 'other' }), state, NOW),
    {},
  )
})

// ---- messages ----

test('basic then a follow-up: idle after each result, the cost is cumulative from the CLI', () => {
  const first = replay(claudeAdapter, loadStream('claude', 'basic'))
  assert.equal(first.phases, ['working', 'idle'])
  assert.equal(first.state.cost, { usd: 0.0213, estimated: false })
  const tell = claudeAdapter.deliver('and the tests?', first.state, NOW + 100, spec())
  assert.is(tell.stdin, userLine('and the tests?'))
  assert.is(tell.state?.phase?.value, 'working')
  const second = replay(claudeAdapter, loadStream('claude', '_followup').slice(1), {
    state: { ...first.state, ...tell.state },
    vars: { PROMPT: 'and the tests?', TOTAL_COST: 0.0213 },
    started: false,
  })
  assert.equal(second.phases, ['working', 'idle'])
  assert.equal(second.state.cost, { usd: 0.0255, estimated: false })
  assert.is(second.state.turns, 2)
  assert.ok(second.transcript.some((l) => l.kind === 'assistant' && l.text === 'You said: and the tests?'))
})

test('a message during a turn is held, then sent (joined with others) when the result comes; working until the next result', () => {
  const held1 = claudeAdapter.deliver('one more thing', working(), NOW, spec())
  assert.is(held1.stdin, undefined)
  assert.equal(held1.state, { queued: ['one more thing'] })
  assert.equal(held1.transcript, [
    { kind: 'user', text: 'one more thing' },
    { kind: 'system', text: 'held until the current turn ends' },
  ])
  const state = {
    ...working(),
    ...held1.state,
    ...claudeAdapter.deliver('and another', { ...working(), ...held1.state }, NOW, spec()).state,
  }
  assert.equal(state.queued, ['one more thing', 'and another'])
  const res = claudeAdapter.stdoutLine(
    JSON.stringify({ type: 'result', subtype: 'success', total_cost_usd: 0.5 }),
    state,
    NOW + 1,
  )
  assert.is(res.stdin, userLine('one more thing\n\nand another'))
  assert.equal(res.state?.queued, [])
  assert.is(res.state?.phase?.value, 'working')
  assert.is(res.state?.phase?.source, 'stream: result; held messages sent')
  const held2 = claudeAdapter.deliver(
    'while it waits on me',
    { ...freshState(), phase: { value: 'needs-you', reason: 'plan', source: 't', at: NOW } },
    NOW,
    spec(),
  )
  assert.equal(held2.state?.queued, ['while it waits on me'])
})

// ---- stopping and failing ----

test('interrupt: a control_request with subtype interrupt', () => {
  assert.equal(JSON.parse(claudeAdapter.interrupt!(freshState())!), {
    type: 'control_request',
    request_id: 'svc-interrupt-0',
    request: { subtype: 'interrupt' },
  })
})

test('sigterm: the turn never finishes; the replay stays working, with no result and no cost', () => {
  const r = replay(claudeAdapter, loadStream('claude', 'sigterm'))
  assert.equal(r.phases, ['working'])
  assert.is(r.state.turns, undefined)
  assert.is(r.state.cost, undefined)
  const end = claudeAdapter.exited(exit(null, { signal: 'SIGTERM', stopping: true }), r.state, NOW, spec())
  assert.equal(end, { end: true }, 'a stop is no failure to start')
})

test('login: an authentication failure is a spawn error with the CLI’s text, and input is closed', () => {
  const r = replay(claudeAdapter, loadStream('claude', 'login'))
  assert.equal(r.state.spawnError, { at: NOW + 2, message: 'Not logged in · Please run /login' })
  assert.ok(r.reductions.some((x) => x.closeInput))
  assert.ok(
    r.transcript.some(
      (l) => l.kind === 'error' && l.text === 'authentication_failed: Not logged in · Please run /login',
    ),
  )
  const end = claudeAdapter.exited(exit(0), r.state, NOW + 10, spec())
  assert.equal(end, { end: true }, 'the first error stays the evidence')
})

test('a rate limit is reported, not a failure to start', () => {
  const ev = { type: 'assistant', message: { content: [{ type: 'text', text: 'Rate limited' }] }, error: 'rate_limit' }
  const r = claudeAdapter.stdoutLine(JSON.stringify(ev), working(), NOW)
  assert.equal(r.state, { lastError: { at: NOW, message: 'Rate limited' } })
})

test('exiting before a first finished turn, unasked, is a spawn error with the CLI’s own words', () => {
  const bad = claudeAdapter.exited(
    exit(1, { stderrTail: ['', "error: unknown option '--effort'"] }),
    freshState(),
    NOW,
    spec(),
  )
  assert.equal(bad, {
    end: true,
    state: { spawnError: { at: NOW, message: "claude exited with code 1: error: unknown option '--effort'" } },
  })
  const killed = claudeAdapter.exited(exit(null, { signal: 'SIGKILL' }), working(), NOW, spec())
  assert.equal(killed.state?.spawnError?.message, 'claude was killed by SIGKILL')
  assert.equal(
    claudeAdapter.exited(exit(1), { ...working(), turns: 2 }, NOW, spec()),
    { end: true },
    'after a finished turn an exit is just the end',
  )
})

// ---- errors and retries, as the real CLI reports them ----

const line = (ev: Record<string, unknown>) => JSON.stringify(ev)

test('api_retry: working (retrying: …) in the CLI’s own words; the next assistant message is progress', () => {
  const r = claudeAdapter.stdoutLine(
    line({
      type: 'system',
      subtype: 'api_retry',
      attempt: 2,
      max_retries: 10,
      retry_delay_ms: 1025,
      error_status: 401,
      error: 'authentication_failed',
    }),
    working(),
    NOW,
  )
  assert.equal(r.state, {
    phase: {
      value: 'working',
      source: 'retrying',
      detail: 'API error 401 authentication_failed; retry 2/10 in 1.0 s',
      at: NOW,
    },
  })
  assert.equal(r.transcript, [
    { kind: 'error', text: 'retrying: API error 401 authentication_failed; retry 2/10 in 1.0 s' },
  ])
  const next = claudeAdapter.stdoutLine(
    line({ type: 'assistant', message: { content: [{ type: 'text', text: 'hi' }] } }),
    { ...working(), ...r.state },
    NOW + 1,
  )
  assert.equal(next.state?.phase, { value: 'working', source: 'stream: assistant', at: NOW + 1 })
  assert.is(
    claudeAdapter.stdoutLine(line({ type: 'assistant', message: { content: [] } }), working(), NOW).state,
    undefined,
    'no phase change when not retrying',
  )
})

test('an error result: a failed first turn is a failure to start (input closed); a later one idle (error: …); after the runner gave up, idle with its words', () => {
  const ev = {
    type: 'result',
    subtype: 'success',
    is_error: true,
    result: 'API Error: 400 bad request',
    total_cost_usd: 0,
  }
  const first = claudeAdapter.stdoutLine(line(ev), working(), NOW)
  assert.equal(first.state?.spawnError, { at: NOW, message: 'API Error: 400 bad request' })
  assert.is(first.closeInput, true)
  assert.is(first.state?.turns, 0)
  const later = claudeAdapter.stdoutLine(line(ev), { ...working(), turns: 2 }, NOW)
  assert.equal(later.state?.phase, { value: 'idle', source: 'error', detail: 'API Error: 400 bad request', at: NOW })
  assert.is(later.state?.spawnError, undefined)
  assert.is(later.closeInput, undefined)
  const interrupted = {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    errors: ['[ede_diagnostic] result_type=user'],
  }
  const gaveUp = claudeAdapter.stdoutLine(
    line(interrupted),
    {
      ...working(),
      gaveUp: { at: NOW, message: 'API error 401; retry 3/10 (retried 600 s without progress; turn interrupted)' },
    },
    NOW + 5,
  )
  assert.equal(gaveUp.state?.phase, {
    value: 'idle',
    source: 'error',
    detail: 'API error 401; retry 3/10 (retried 600 s without progress; turn interrupted)',
    at: NOW + 5,
  })
  assert.is(gaveUp.state?.spawnError, undefined, 'a retry loop given up is no failure to start')
  assert.ok('gaveUp' in gaveUp.state! && gaveUp.state.gaveUp === undefined)
  assert.equal(claudeAdapter.stdoutLine(line(interrupted), { ...working(), turns: 1 }, NOW).transcript, [
    { kind: 'error', text: 'result: error_during_execution: [ede_diagnostic] result_type=user' },
  ])
})

test('fatal assistant error kinds on a first turn are failures to start; later, or not fatal, only the error', () => {
  const table: [string, boolean][] = [
    ['authentication_failed', true],
    ['billing_error', true],
    ['account_on_hold', true],
    ['verification_required', true],
    ['cloud_credential_error', true],
    ['oauth_org_not_allowed', true],
    ['rate_limit', false],
    ['unknown', false],
  ]
  for (const [kind, fatal] of table) {
    const ev = line({ type: 'assistant', message: { content: [{ type: 'text', text: `said ${kind}` }] }, error: kind })
    const r = claudeAdapter.stdoutLine(ev, working(), NOW)
    assert.is(Boolean(r.state?.spawnError), fatal, kind)
    assert.is(Boolean(r.closeInput), fatal, kind)
    assert.equal(r.state?.lastError, { at: NOW, message: `said ${kind}` })
    assert.is(
      claudeAdapter.stdoutLine(ev, { ...working(), turns: 1 }, NOW).state?.spawnError,
      undefined,
      `${kind} after a finished turn`,
    )
  }
})

test('a first turn that worked (a tool call, output) and then failed is idle (error: …), never a failure to start', () => {
  const worked: RunnerState = { ...working(), worked: { at: NOW - 5, detail: 'a tool call' } }
  const result = line({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: 529 overloaded' })
  const r = claudeAdapter.stdoutLine(result, worked, NOW)
  assert.equal(r.state?.phase, { value: 'idle', source: 'error', detail: 'API Error: 529 overloaded', at: NOW })
  assert.is(r.state?.spawnError, undefined)
  assert.is(r.closeInput, undefined, 'the CLI stays, a message can go on with the work')
  const fatal = line({
    type: 'assistant',
    message: { content: [{ type: 'text', text: 'API Error: 401 invalid x-api-key' }] },
    error: 'authentication_failed',
  })
  const f = claudeAdapter.stdoutLine(fatal, worked, NOW)
  assert.equal(f.state, { lastError: { at: NOW, message: 'API Error: 401 invalid x-api-key' } })
  assert.is(f.closeInput, undefined)
  assert.is(claudeAdapter.stdoutLine(fatal, working(), NOW).state?.worked, undefined, 'the CLI’s own error is no work')
  assert.equal(claudeAdapter.exited(exit(1), { ...worked, lastError: { at: NOW, message: 'gone' } }, NOW, spec()), {
    end: true,
  })
})

test('the CLI’s own notes in the user’s place reach the transcript', () => {
  const r = claudeAdapter.stdoutLine(
    line({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    }),
    working(),
    NOW,
  )
  assert.equal(r.transcript, [{ kind: 'system', text: '[Request interrupted by user]' }])
})

test.run()
