import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { claudeAdapter } from '../../kernel/io/harness/claude.js'
import { shellAdapter } from '../../kernel/io/harness/shell.js'
import { adapterFor } from '../../kernel/io/harness/index.js'
import type { RunnerState } from '../../kernel/domain/runner-state.js'
import { freshState, launchSpec, NOW } from '../helpers/replay.js'

const spec = launchSpec
const emptyState = freshState

// ---- shell ----

test('adapterFor knows shell, claude and codex, not none', () => {
  assert.is(adapterFor('shell'), shellAdapter)
  assert.is(adapterFor('claude'), claudeAdapter)
  assert.is(adapterFor('codex')?.name, 'codex')
  assert.is(adapterFor('none'), undefined)
})

test('shell buildLaunch: bash -e <script>, no stdin; a model it cannot use is said to be ignored', () => {
  const plan = shellAdapter.buildLaunch(
    spec({ harness: 'shell', script: '/h/agents/conv-x/lane-brief.md', model: 'ignored', firstMessage: 'ignored' }),
  )
  assert.equal(plan, {
    command: 'bash',
    args: ['-e', '/h/agents/conv-x/lane-brief.md'],
    stdin: 'none',
    notes: ['the shell harness runs a script: it ignores --model ignored'],
  })
  assert.equal(shellAdapter.buildLaunch(spec({ harness: 'shell', script: '/s' })), {
    command: 'bash',
    args: ['-e', '/s'],
    stdin: 'none',
  })
})

test('shell buildLaunch without a script refuses', () => {
  assert.throws(() => shellAdapter.buildLaunch(spec({ harness: 'shell' })), /script/)
})

test('shell started: phase working at the given time', () => {
  const r = shellAdapter.started(NOW, spec({ harness: 'shell', script: '/s' }))
  assert.is(r.state?.phase?.value, 'working')
  assert.is(r.state?.phase?.at, NOW)
  assert.type(r.state?.phase?.source, 'string')
})

test('shell stdoutLine: a stdout transcript line and no state change', () => {
  const r = shellAdapter.stdoutLine('hello {"type":"result"}', emptyState(), NOW)
  assert.equal(r.transcript, [{ kind: 'stdout', text: 'hello {"type":"result"}' }])
  assert.is(r.state, undefined)
})

test('shell deliver: appended to the inbox file with one trailing newline, never stdin', () => {
  const r = shellAdapter.deliver('please also fix x', emptyState(), NOW, launchSpec({ harness: 'shell' }))
  assert.is(r.appendToFile, 'please also fix x\n')
  assert.is(r.stdin, undefined)
  assert.equal(r.transcript, [{ kind: 'user', text: 'please also fix x' }])
  assert.is(
    shellAdapter.deliver('already\n', emptyState(), NOW, launchSpec({ harness: 'shell' })).appendToFile,
    'already\n',
  )
})

// ---- claude ----

const userLine = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } }) + '\n'

test('claude buildLaunch: full argument array', () => {
  const plan = claudeAdapter.buildLaunch(
    spec({
      model: 'claude-opus-4',
      effort: 'high',
      session: '0b5c3d4e-1111-4222-8333-944445555666',
      firstMessage: 'the contract',
    }),
  )
  assert.is(plan.command, 'claude')
  assert.equal(plan.args, [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--model',
    'claude-opus-4',
    '--effort',
    'high',
    '--session-id',
    '0b5c3d4e-1111-4222-8333-944445555666',
    '--permission-prompt-tool',
    'stdio',
  ])
  assert.is(plan.stdin, 'keep-open')
  assert.is(plan.initialInput, userLine('the contract'))
  assert.equal(JSON.parse(plan.initialInput!), { type: 'user', message: { role: 'user', content: 'the contract' } })
})

test('claude buildLaunch: resume forks the source session under the chosen session id', () => {
  const plan = claudeAdapter.buildLaunch(spec({ model: 'm', resume: 'sess-1', session: 'sess-2' }))
  assert.equal(plan.args, [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--model',
    'm',
    '--resume',
    'sess-1',
    '--fork-session',
    '--session-id',
    'sess-2',
    '--permission-prompt-tool',
    'stdio',
  ])
})

test('claude buildLaunch: minimal spec has no optional flags and no initial input', () => {
  const plan = claudeAdapter.buildLaunch(spec())
  assert.equal(plan.args, [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-prompt-tool',
    'stdio',
  ])
  assert.is(plan.initialInput, undefined)
  assert.is(plan.stdin, 'keep-open')
})

test('claude started with a first message: working', () => {
  const r = claudeAdapter.started(NOW, spec({ firstMessage: 'go' }))
  assert.is(r.state?.phase?.value, 'working')
  assert.is(r.state?.phase?.at, NOW)
})

/** A small recorded stream-json session. */
const STREAM = [
  {
    type: 'system',
    subtype: 'init',
    model: 'claude-sonnet-4-5',
    session_id: 'sess-abc',
    tools: ['Bash'],
    cwd: '/lanes/r1-b',
  },
  {
    type: 'assistant',
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking at the repo.' },
        { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls' } },
      ],
    },
  },
  {
    type: 'control_request',
    request_id: 'req-1',
    request: { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'rm -rf build' } },
  },
  { type: 'result', subtype: 'success', total_cost_usd: 0.0123, is_error: false },
].map((e) => JSON.stringify(e))

test('claude stdoutLine: system init gives model and session', () => {
  const r = claudeAdapter.stdoutLine(STREAM[0], emptyState(), NOW)
  assert.is(r.state?.model, 'claude-sonnet-4-5')
  assert.is(r.state?.session, 'sess-abc')
  assert.is(r.state?.phase, undefined)
  assert.is(r.transcript?.length, 1)
  assert.is(r.transcript?.[0].kind, 'system')
  assert.match(r.transcript![0].text, 'sess-abc')
  assert.match(r.transcript![0].text, 'claude-sonnet-4-5')
})

test('claude stdoutLine: a non-init system event changes nothing', () => {
  assert.equal(
    claudeAdapter.stdoutLine(JSON.stringify({ type: 'system', subtype: 'compact_boundary' }), emptyState(), NOW),
    {},
  )
})

test('claude stdoutLine: assistant text and tool use become transcript lines, no phase change; the first work is recorded once', () => {
  const r = claudeAdapter.stdoutLine(STREAM[1], emptyState(), NOW)
  assert.equal(r.state, { worked: { at: NOW, detail: 'a tool call' } })
  assert.is(claudeAdapter.stdoutLine(STREAM[1], { ...emptyState(), ...r.state }, NOW + 1).state, undefined)
  assert.is(r.transcript?.length, 2)
  assert.equal(r.transcript?.[0], { kind: 'assistant', text: 'Looking at the repo.' })
  assert.is(r.transcript?.[1].kind, 'tool')
  assert.match(r.transcript![1].text, 'Bash')
  assert.match(r.transcript![1].text, '"command":"ls"')
})

test('claude stdoutLine: can_use_tool Bash is needs-you (permission) with the pending request', () => {
  const r = claudeAdapter.stdoutLine(STREAM[2], emptyState(), NOW)
  assert.is(r.state?.phase?.value, 'needs-you')
  assert.is(r.state?.phase?.reason, 'permission')
  assert.is(r.state?.phase?.at, NOW)
  assert.equal(r.state?.pending, {
    id: 'req-1',
    kind: 'permission',
    tool: 'Bash',
    input: { command: 'rm -rf build' },
    at: NOW,
  })
  assert.ok(r.transcript?.length)
})

test('claude stdoutLine: AskUserQuestion is a question, ExitPlanMode a plan, anything else a permission', () => {
  const req = (tool: string) =>
    JSON.stringify({
      type: 'control_request',
      request_id: 'r9',
      request: { subtype: 'can_use_tool', tool_name: tool, input: {} },
    })
  const reason = (tool: string) => claudeAdapter.stdoutLine(req(tool), emptyState(), NOW).state?.phase?.reason
  assert.is(reason('AskUserQuestion'), 'question')
  assert.is(reason('ExitPlanMode'), 'plan')
  assert.is(reason('Bash'), 'permission')
  assert.is(reason('Write'), 'permission')
  assert.is(claudeAdapter.stdoutLine(req('AskUserQuestion'), emptyState(), NOW).state?.pending?.kind, 'question')
  assert.is(claudeAdapter.stdoutLine(req('ExitPlanMode'), emptyState(), NOW).state?.pending?.kind, 'plan')
})

test('claude stdoutLine: a control_request of another subtype changes nothing', () => {
  const r = claudeAdapter.stdoutLine(
    JSON.stringify({ type: 'control_request', request_id: 'x', request: { subtype: 'interrupt' } }),
    emptyState(),
    NOW,
  )
  assert.equal(r, {})
})

test('claude stdoutLine: result is idle, carries the cost and clears the pending request', () => {
  const before: RunnerState = {
    ...emptyState(),
    pending: { id: 'req-1', kind: 'permission', tool: 'Bash', at: NOW - 5 },
  }
  const r = claudeAdapter.stdoutLine(STREAM[3], before, NOW)
  assert.is(r.state?.phase?.value, 'idle')
  assert.is(r.state?.phase?.at, NOW)
  assert.equal(r.state?.cost, { usd: 0.0123, estimated: false })
  assert.ok(r.state && 'pending' in r.state, 'pending is cleared explicitly')
  assert.is(r.state?.pending, undefined)
})

test('claude stdoutLine: result without a cost keeps the earlier cost', () => {
  const before: RunnerState = { ...emptyState(), cost: { usd: 1.5, estimated: false } }
  const r = claudeAdapter.stdoutLine(JSON.stringify({ type: 'result', subtype: 'error_during_execution' }), before, NOW)
  assert.is(r.state?.phase?.value, 'idle')
  assert.equal(r.state?.cost, { usd: 1.5, estimated: false })
})

test('claude stdoutLine: a non-JSON line is a stdout transcript line', () => {
  const r = claudeAdapter.stdoutLine('Warning: something printed plain text', emptyState(), NOW)
  assert.equal(r, { transcript: [{ kind: 'stdout', text: 'Warning: something printed plain text' }] })
})

test('claude stdoutLine: an unknown event type changes nothing', () => {
  assert.equal(claudeAdapter.stdoutLine(JSON.stringify({ type: 'stream_event', event: {} }), emptyState(), NOW), {})
})

test('claude: the recorded stream folded in order ends idle with model, session and cost', () => {
  let state = emptyState()
  const phases: string[] = []
  const started = claudeAdapter.started(NOW, spec({ firstMessage: 'go' }))
  state = { ...state, ...started.state }
  phases.push(state.phase!.value)
  STREAM.forEach((line, i) => {
    const r = claudeAdapter.stdoutLine(line, state, NOW + i + 1)
    state = { ...state, ...r.state }
    phases.push(state.phase!.value)
  })
  assert.equal(phases, ['working', 'working', 'working', 'needs-you', 'idle'])
  assert.is(state.model, 'claude-sonnet-4-5')
  assert.is(state.session, 'sess-abc')
  assert.equal(state.cost, { usd: 0.0123, estimated: false })
  assert.is(state.pending, undefined)
})

test('claude deliver: a user line on stdin and phase working', () => {
  const r = claudeAdapter.deliver('next step', emptyState(), NOW, launchSpec())
  assert.is(r.stdin, userLine('next step'))
  assert.is(r.state?.phase?.value, 'working')
  assert.is(r.state?.phase?.at, NOW)
  assert.equal(r.transcript, [{ kind: 'user', text: 'next step' }])
  assert.is(r.appendToFile, undefined)
})

test.run()
