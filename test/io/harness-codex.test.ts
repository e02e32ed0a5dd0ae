import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { LaunchSpec, RunnerState } from '../../kernel/domain/runner-state.js'
import { CODEX_USAGE_BASIS, estimateUsd } from '../../kernel/domain/token-cost.js'
import { codexAdapter } from '../../kernel/io/harness/codex.js'
import type { Reduction } from '../../kernel/io/harness/types.js'
import { freshState, launchSpec, NOW } from '../helpers/replay.js'

/** The codex adapter folds codex's app-server messages (JSON-RPC lines, shaped as codex 0.169 writes them) into the
 * conversation's state, and writes its requests and answers. */

const spec = (extra: Partial<LaunchSpec> = {}) =>
  launchSpec({ id: '8', name: 'r1-c', harness: 'codex', cwd: '/lanes/r1-c', firstMessage: 'the contract', ...extra })
const exit = (code: number | null, extra: Partial<{ signal: string | null; stopping: boolean }> = {}) => ({
  code,
  signal: null,
  stopping: false,
  stderrTail: [],
  ...extra,
})
const lines = (stdin: string | undefined) =>
  (stdin ?? '')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
const msg = (m: Record<string, unknown>) => JSON.stringify(m)
const fold = (state: RunnerState, r: Reduction): RunnerState => ({ ...state, ...r.state })
const working = (extra: Partial<RunnerState> = {}): RunnerState => ({
  ...freshState(),
  session: 'th-1',
  harnessTurn: 'tu-1',
  phase: { value: 'working', source: 'stream: turn/started', at: NOW },
  ...extra,
})
const APPROVAL = {
  method: 'item/commandExecution/requestApproval',
  id: 0,
  params: {
    kind: 'command',
    threadId: 'th-1',
    turnId: 'tu-1',
    itemId: 'call_1',
    reason: 'command failed; retry without sandbox?',
    command: "/bin/bash -c 'touch /var/tmp/x'",
    cwd: '/lanes/r1-c',
    commandActions: [{ type: 'unknown', command: 'touch /var/tmp/x' }],
  },
}

test('launch: codex app-server with the policy as settings; initialize, then a thread (a fork for a successor)', () => {
  const plan = codexAdapter.buildLaunch(spec({ model: 'gpt-5-codex', effort: 'high' }))
  assert.is(plan.command, 'codex')
  assert.equal(plan.args.slice(0, 5), [
    'app-server',
    '-c',
    'model="gpt-5-codex"',
    '-c',
    'model_reasoning_effort="high"',
  ])
  assert.ok(plan.args.includes('sandbox_mode="workspace-write"'))
  assert.is(plan.stdin, 'keep-open')
  const sent = lines(plan.initialInput)
  assert.equal(
    sent.map((m) => m.method),
    ['initialize', 'initialized', 'thread/start'],
  )
  assert.is(sent[0].params.capabilities.experimentalApi, true)
  assert.equal(sent[2].params, { cwd: '/lanes/r1-c', model: 'gpt-5-codex' })
  const fork = lines(codexAdapter.buildLaunch(spec({ resume: 'th-0' })).initialInput)[2]
  assert.equal([fork.method, fork.params.threadId], ['thread/fork', 'th-0'])
  assert.ok(codexAdapter.buildLaunch(spec({ play: true })).args.includes('project_doc_max_bytes=0'))
})

test('the first message waits for the thread, then starts the first turn; a message in a turn is held', () => {
  const started = codexAdapter.started(NOW, spec({ model: 'gpt-5-codex' }))
  let state = fold(freshState(), started)
  assert.equal(state.queued, ['the contract'])
  assert.is(state.phase?.value, 'working')
  const early = codexAdapter.deliver('and the docs', state, NOW, spec())
  assert.equal(early.state?.queued, ['the contract', 'and the docs'], 'held until the thread is there')
  state = fold(state, early)
  const thread = codexAdapter.stdoutLine(msg({ id: 'svc-thread', result: { thread: { id: 'th-1' } } }), state, NOW)
  assert.equal(thread.state, { session: 'th-1', queued: [] })
  const turn = lines(thread.stdin)[0]
  assert.equal(
    [turn.method, turn.params.threadId, turn.params.input[0].text],
    ['turn/start', 'th-1', 'the contract\n\nand the docs'],
  )
  const idle = { ...fold(state, thread), phase: { value: 'idle' as const, source: 'x', at: NOW } }
  const next = codexAdapter.deliver('more', idle, NOW + 1, spec())
  assert.equal(lines(next.stdin)[0].params.input[0].text, 'more')
  assert.is(next.state?.phase?.value, 'working')
  assert.equal(codexAdapter.deliver('later', working(), NOW, spec()).state?.queued, ['later'])
})

test('a turn: its command is work, its usage is the thread’s running total and its cost, turn/completed is idle', () => {
  let state = working({ model: 'gpt-5-codex' })
  const cmd = codexAdapter.stdoutLine(
    msg({
      method: 'item/started',
      params: {
        item: {
          type: 'commandExecution',
          command: "/bin/bash -c 'git add -A'",
          commandActions: [{ command: 'git add -A' }],
        },
      },
    }),
    state,
    NOW,
  )
  assert.equal(cmd.transcript, [{ kind: 'tool', text: '$ git add -A' }])
  assert.equal(cmd.state, { worked: { at: NOW, detail: 'stream: item/started commandExecution' } })
  state = fold(state, cmd)
  const echoed = codexAdapter.stdoutLine(
    msg({ method: 'item/started', params: { item: { type: 'userMessage' } } }),
    freshState(),
    NOW,
  )
  assert.is(echoed.state, undefined, 'the user’s own message is no work')
  const total = { inputTokens: 2400, cachedInputTokens: 400, outputTokens: 60 }
  const used = codexAdapter.stdoutLine(
    msg({ method: 'thread/tokenUsage/updated', params: { tokenUsage: { total, last: {} } } }),
    state,
    NOW,
  )
  const usage = { input: 2400, cachedInput: 400, output: 60 }
  assert.equal(used.state, {
    usage,
    cost: { usd: estimateUsd('gpt-5-codex', usage), estimated: true, basis: CODEX_USAGE_BASIS },
  })
  state = fold(state, used)
  const done = codexAdapter.stdoutLine(
    msg({ method: 'turn/completed', params: { turn: { id: 'tu-1', status: 'completed', error: null } } }),
    state,
    NOW + 5,
  )
  assert.equal(done.state?.phase, { value: 'idle', source: 'stream: turn/completed', at: NOW + 5 })
  assert.is(done.state?.turns, 1)
  assert.is(done.state?.harnessTurn, undefined)
})

test('a command the sandbox refused asks: needs-you (permission) until answered; allow accepts, deny declines and its words follow', () => {
  const asked = codexAdapter.stdoutLine(msg(APPROVAL), working(), NOW)
  assert.equal(asked.state?.phase, {
    value: 'needs-you',
    reason: 'permission',
    source: 'stream: item/commandExecution/requestApproval',
    at: NOW,
    detail: 'command',
  })
  assert.equal(asked.state?.pending, {
    id: '0',
    kind: 'permission',
    tool: 'command',
    input: {
      rpcId: 0,
      command: 'touch /var/tmp/x',
      cwd: '/lanes/r1-c',
      reason: 'command failed; retry without sandbox?',
    },
    at: NOW,
  })
  assert.equal(asked.transcript, [
    { kind: 'tool', text: 'needs you (permission): $ touch /var/tmp/x (command failed; retry without sandbox?)' },
  ])
  const waiting = fold(working(), asked)
  const allow = codexAdapter.answer!({ id: '0', decision: 'allow' }, waiting, NOW + 1)
  assert.equal(lines(allow.stdin), [{ id: 0, result: { decision: 'accept' } }], 'codex’s own id, a number')
  assert.equal(allow.state?.phase, { value: 'working', source: 'answer: allow', at: NOW + 1, detail: 'command' })
  assert.is(allow.state?.pending, undefined)
  const deny = codexAdapter.answer!({ id: '0', decision: 'deny', message: 'not outside the worktree' }, waiting, NOW)
  assert.equal(lines(deny.stdin), [{ id: 0, result: { decision: 'decline' } }])
  assert.equal(deny.state?.queued, ['not outside the worktree'], 'said as the next message')
  const stale = codexAdapter.answer!({ id: '9', decision: 'allow' }, waiting, NOW)
  assert.is(stale.stdin, undefined)
  const withdrawn = codexAdapter.stdoutLine(
    msg({ method: 'serverRequest/resolved', params: { requestId: 0 } }),
    waiting,
    NOW,
  )
  assert.equal([withdrawn.state?.pending, withdrawn.state?.phase?.value], [undefined, 'working'])
  const file = codexAdapter.stdoutLine(
    msg({ method: 'item/fileChange/requestApproval', id: 'f1', params: { reason: 'write /etc/x', grantRoot: '/etc' } }),
    working(),
    NOW,
  )
  assert.equal([file.state?.phase?.value, file.state?.pending?.tool], ['needs-you', 'file change'])
  assert.equal(file.state?.pending?.input, { rpcId: 'f1', path: '/etc', reason: 'write /etc/x' })
})

test('a request svc cannot answer is refused at once, so codex never waits on it', () => {
  const r = codexAdapter.stdoutLine(msg({ method: 'item/tool/requestUserInput', id: 7, params: {} }), working(), NOW)
  assert.equal(lines(r.stdin), [
    { id: 7, error: { code: -32601, message: 'svc does not answer item/tool/requestUserInput' } },
  ])
  assert.is(r.state, undefined)
})

test('errors: a retry is working (retrying: …) in codex’s words; a first turn failed before work is a failure to start; after work idle (error: …)', () => {
  const retry = codexAdapter.stdoutLine(
    msg({
      method: 'error',
      params: {
        error: { message: 'Reconnecting... 1/1', additionalDetails: 'unexpected status 401 Unauthorized' },
        willRetry: true,
      },
    }),
    working(),
    NOW,
  )
  assert.equal(retry.state?.phase, {
    value: 'working',
    source: 'retrying',
    detail: 'Reconnecting... 1/1 (unexpected status 401 Unauthorized)',
    at: NOW,
  })
  const failed = (state: RunnerState) =>
    codexAdapter.stdoutLine(
      msg({
        method: 'turn/completed',
        params: { turn: { status: 'failed', error: { message: 'unexpected status 401' } } },
      }),
      state,
      NOW,
    )
  const first = failed(working())
  assert.equal(first.state?.spawnError, { at: NOW, message: 'unexpected status 401' })
  assert.is(first.closeInput, true)
  const later = failed(working({ worked: { at: NOW, detail: 'x' } }))
  assert.is(later.state?.spawnError, undefined)
  assert.equal(later.state?.phase, { value: 'idle', source: 'error', detail: 'unexpected status 401', at: NOW })
  const gaveUp = { at: NOW, message: 'Reconnecting... (retried 5 s without progress; turn interrupted)' }
  const interrupted = codexAdapter.stdoutLine(
    msg({ method: 'turn/completed', params: { turn: { status: 'interrupted', error: null } } }),
    working({ gaveUp }),
    NOW,
  )
  assert.equal(interrupted.state?.phase, { value: 'idle', source: 'error', detail: gaveUp.message, at: NOW })
  assert.is(interrupted.closeInput, undefined, 'an interrupted retry loop is no failure to start')
})

test('interrupt asks codex to end the turn under way; exits: a stop ends it, an exit before work is a failure to start', () => {
  assert.equal(lines(codexAdapter.interrupt!(working())), [
    { id: 'svc-interrupt-0', method: 'turn/interrupt', params: { threadId: 'th-1', turnId: 'tu-1' } },
  ])
  assert.is(codexAdapter.interrupt!(freshState()), undefined, 'no turn: the runner signals')
  assert.equal(codexAdapter.exited(exit(null, { signal: 'SIGTERM', stopping: true }), working(), NOW, spec()), {
    end: true,
  })
  const before = codexAdapter.exited(exit(1), working(), NOW, spec())
  assert.equal(before.state?.spawnError, { at: NOW, message: 'codex exited with code 1' })
  const after = codexAdapter.exited(exit(1), working({ turns: 1 }), NOW, spec())
  assert.equal(
    [after.end, after.state?.spawnError, after.state?.lastError?.message],
    [true, undefined, 'codex exited with code 1'],
  )
})

test('messages held during a turn go to the thread as the next turn when it completes, in the order sent', () => {
  const r = codexAdapter.stdoutLine(
    msg({ method: 'turn/completed', params: { turn: { status: 'completed' } } }),
    working({ worked: { at: NOW, detail: 'x' }, queued: ['first', 'second'] }),
    NOW,
  )
  assert.equal(r.state?.queued, [])
  assert.equal(r.state?.phase, { value: 'working', source: 'stream: turn/completed; held messages sent', at: NOW })
  const [start] = lines(r.stdin)
  assert.is(start.method, 'turn/start')
  assert.is(start.params.threadId, 'th-1')
  assert.equal(start.params.input, [{ type: 'text', text: 'first\n\nsecond', text_elements: [] }])
  const idle = codexAdapter.stdoutLine(
    msg({ method: 'turn/completed', params: { turn: { status: 'completed' } } }),
    working({ worked: { at: NOW, detail: 'x' } }),
    NOW,
  )
  assert.is(idle.stdin, undefined)
  assert.equal(idle.state?.phase, { value: 'idle', source: 'stream: turn/completed', at: NOW })
})

test.run()
