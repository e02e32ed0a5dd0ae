import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { codexTurnEntries, loadStream } from '../../fixtures/streams.js'
import type { LaunchSpec, RunnerState } from '../../kernel/domain/runner-state.js'
import { CODEX_USAGE_BASIS, estimateUsd, pricesFor } from '../../kernel/domain/token-cost.js'
import { codexAdapter, codexTurn } from '../../kernel/io/harness/codex.js'
import { freshState, launchSpec, NOW, replay } from '../helpers/replay.js'

const spec = (extra: Partial<LaunchSpec> = {}) =>
  launchSpec({ id: '8', name: 'r1-c', harness: 'codex', cwd: '/lanes/r1-c', firstMessage: 'the contract', ...extra })
const exit = (
  code: number | null,
  extra: Partial<{ signal: string | null; stopping: boolean; stderrTail: string[] }> = {},
) => ({ code, signal: null, stopping: false, stderrTail: [], ...extra })
const turn = (scenario: string, n: number) => codexTurnEntries(loadStream('codex', scenario), n)
const TURN1_USD = (315 * 1.25 + 24448 * 0.125 + 122 * 10) / 1e6

// ---- launch ----

test('buildLaunch: codex exec --json in the directory, model, reasoning effort, sandbox, the message after --', () => {
  const plan = codexAdapter.buildLaunch(spec({ model: 'gpt-5-codex', effort: 'high', session: 'ignored-uuid' }))!
  assert.equal(plan, {
    command: 'codex',
    args: [
      'exec',
      '--json',
      '-C',
      '/lanes/r1-c',
      '-m',
      'gpt-5-codex',
      '-c',
      'model_reasoning_effort="high"',
      '-s',
      'workspace-write',
      '--skip-git-repo-check',
      '--',
      'the contract',
    ],
    stdin: 'none',
  })
})

test('buildLaunch of a play lane reads no AGENTS.md: a project doc budget of 0 bytes', () => {
  const plan = codexAdapter.buildLaunch(spec({ play: true }))!
  assert.equal(plan.args, [
    'exec',
    '--json',
    '-C',
    '/lanes/r1-c',
    '-c',
    'project_doc_max_bytes=0',
    '-s',
    'workspace-write',
    '--skip-git-repo-check',
    '--',
    'the contract',
  ])
})

test('buildLaunch of a fork says codex cannot honour it; without a first message nothing runs yet (idle)', () => {
  assert.equal(codexAdapter.buildLaunch(spec({ resume: 'thread-0' }))!.notes, [
    'codex exec cannot fork a thread: this conversation starts a new one',
  ])
  assert.is(codexAdapter.buildLaunch(spec({ firstMessage: undefined })), undefined)
  assert.equal(codexAdapter.started(NOW, spec({ firstMessage: undefined, model: 'gpt-5' })).state, {
    model: 'gpt-5',
    phase: { value: 'idle', source: 'launch: waiting for a first message', at: NOW },
  })
  assert.is(codexAdapter.started(NOW, spec()).state?.phase?.value, 'working')
})

test('codexTurn resuming a thread: exec options, then resume <thread_id> -- <message>', () => {
  assert.equal(codexTurn(spec({ effort: 'low' }), '-not a flag', 'thread-1').args, [
    'exec',
    '--json',
    '-C',
    '/lanes/r1-c',
    '-c',
    'model_reasoning_effort="low"',
    '-s',
    'workspace-write',
    '--skip-git-repo-check',
    'resume',
    'thread-1',
    '--',
    '-not a flag',
  ])
})

test('a first message to a conversation started without one starts the thread', () => {
  const idle = codexAdapter.started(NOW, spec({ firstMessage: undefined })).state!
  const r = codexAdapter.deliver('begin', { ...freshState(), ...idle }, NOW, spec({ firstMessage: undefined }))
  assert.equal(r.spawn?.args.slice(-3), ['--skip-git-repo-check', '--', 'begin'])
  assert.is(r.state?.phase?.source, 'launch: first message')
})

test('the runner is what alive means between turns', () => {
  assert.is(codexAdapter.lifetime, 'runner')
})

// ---- the recorded turns ----

test('basic turn 1: working from the launch to turn.completed, idle after; thread id, tokens and an estimated cost', () => {
  const r = replay(codexAdapter, turn('basic', 1), {
    state: { ...freshState(), model: 'gpt-5-codex' },
    vars: { HEAD: 'Fix the login form' },
  })
  assert.equal(r.phases, ['working', 'idle'])
  assert.is(r.state.session, 'thread-1')
  assert.is(r.state.turns, 1)
  assert.equal(r.state.usage, { input: 24763, cachedInput: 24448, output: 122 })
  assert.equal(r.state.cost, { usd: TURN1_USD, estimated: true, basis: CODEX_USAGE_BASIS })
  assert.equal(r.transcript, [
    { kind: 'system', text: 'thread thread-1' },
    {
      kind: 'system',
      text: 'warning: Model metadata for `claude-test-1` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
    },
    { kind: 'tool', text: '$ bash -lc ls' },
    { kind: 'tool', text: '$ bash -lc ls → exit 0' },
    { kind: 'assistant', text: 'Read the brief: Fix the login form' },
    { kind: 'system', text: 'turn completed; thread so far: 24763 input (24448 cached), 122 output tokens' },
  ])
  assert.ok(
    r.reductions.some((x) => x.state?.phase?.source === 'stream: turn.started'),
    'working is confirmed by turn.started',
  )
  assert.ok(
    r.reductions.some((x) => x.state?.phase?.value === 'idle' && x.state.phase.source === 'stream: turn.completed'),
  )
})

test('a message when idle resumes the thread; its usage is the thread’s running total, never added to the first', () => {
  const first = replay(codexAdapter, turn('basic', 1), { state: { ...freshState(), model: 'gpt-5-codex' } })
  const tell = codexAdapter.deliver('add notes', first.state, NOW + 50, spec({ model: 'gpt-5-codex' }))
  assert.equal(tell.spawn?.args.slice(-4), ['resume', 'thread-1', '--', 'add notes'])
  assert.equal(tell.state?.phase?.source, 'launch: codex exec resume')
  const second = replay(codexAdapter, turn('basic', 2), {
    state: { ...first.state, ...tell.state },
    started: false,
    vars: { PROMPT: 'add notes' },
  })
  assert.equal(second.phases, ['working', 'idle'])
  assert.equal(second.state.usage, { input: 50873, cachedInput: 49152, output: 180 })
  assert.equal(second.state.cost, {
    usd: estimateUsd('gpt-5-codex', second.state.usage!),
    estimated: true,
    basis: CODEX_USAGE_BASIS,
  })
  assert.ok(second.transcript.some((l) => l.text === 'changed add notes.md'))
  assert.equal(
    codexAdapter.exited(exit(0), second.state, NOW + 99, spec()),
    { end: false, transcript: [], state: {} },
    'the turn is over; the runner waits',
  )
})

test('a message during a turn is held; the turn ends working, and its exit starts `resume` with the held messages', () => {
  const mid = replay(codexAdapter, turn('slow', 1).slice(0, 3), { state: { ...freshState(), model: 'gpt-5' } })
  assert.is(mid.state.phase?.value, 'working')
  const held = codexAdapter.deliver('also update the docs', mid.state, NOW, spec())
  assert.is(held.spawn, undefined)
  assert.equal(held.state, { queued: ['also update the docs'] })
  const state = {
    ...mid.state,
    ...held.state,
    ...codexAdapter.deliver('and the changelog', { ...mid.state, ...held.state }, NOW, spec()).state,
  }
  const done = codexAdapter.stdoutLine(
    JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 1 } }),
    state,
    NOW + 1,
  )
  assert.is(done.state?.phase?.value, 'working', 'held messages keep it working')
  const after = { ...state, ...done.state }
  const r = codexAdapter.exited(exit(0), after, NOW + 2, spec())
  assert.is(r.end, false)
  assert.equal(r.spawn?.args.slice(-4), ['resume', 'thread-1', '--', 'also update the docs\n\nand the changelog'])
  assert.equal(r.state?.queued, [])
  assert.is(r.state?.phase?.source, 'launch: held messages')
})

test('login: a first turn that fails is a spawn error with codex’s message', () => {
  const r = replay(codexAdapter, turn('login', 1))
  assert.equal(r.phases, ['working', 'idle'])
  assert.is(
    r.state.lastError?.message,
    'unexpected status 401 Unauthorized: Missing bearer or basic authentication in header',
  )
  const end = codexAdapter.exited(exit(1), r.state, NOW + 10, spec())
  assert.equal(end, {
    end: true,
    state: {
      spawnError: {
        at: NOW + 10,
        message:
          'codex exited with code 1: unexpected status 401 Unauthorized: Missing bearer or basic authentication in header',
      },
    },
  })
})

test('an exit before any event (a bad flag) is a spawn error with the stderr line', () => {
  const r = codexAdapter.exited(
    exit(2, { stderrTail: ["error: unexpected argument '--bogus' found", '', "For more information, try '--help'."] }),
    { ...freshState(), phase: { value: 'working', source: 't', at: NOW } },
    NOW,
    spec(),
  )
  assert.equal(r.state?.spawnError?.message, "codex exited with code 2: error: unexpected argument '--bogus' found")
  assert.is(r.end, true)
})

test('a later turn that fails is reported; the conversation goes on, idle with the error as evidence', () => {
  const state: RunnerState = {
    ...freshState(),
    turns: 1,
    session: 't',
    phase: { value: 'working', source: 'x', at: NOW },
  }
  const r = codexAdapter.exited(exit(1, { stderrTail: ['Error: stream disconnected'] }), state, NOW, spec())
  assert.equal(r, {
    end: false,
    transcript: [{ kind: 'error', text: 'codex exited with code 1: Error: stream disconnected' }],
    state: {
      lastError: { at: NOW, message: 'codex exited with code 1: Error: stream disconnected' },
      phase: {
        value: 'idle',
        source: 'error',
        detail: 'codex exited with code 1: Error: stream disconnected',
        at: NOW,
      },
    },
  })
})

test('a first turn that ran a command and then failed (a 529, a broken stream) is idle (error: …), not a failure to start', () => {
  const started = codexAdapter.stdoutLine(
    JSON.stringify({ type: 'item.started', item: { id: 'i1', type: 'command_execution', command: 'git add -A' } }),
    { ...freshState(), phase: { value: 'working', source: 'x', at: NOW } },
    NOW,
  )
  assert.equal(started.state, { worked: { at: NOW, detail: 'stream: item.started command_execution' } })
  const warning = codexAdapter.stdoutLine(
    JSON.stringify({ type: 'item.completed', item: { id: 'i0', type: 'error', message: 'model metadata missing' } }),
    freshState(),
    NOW,
  )
  assert.is(warning.state, undefined, 'a warning is no work')
  const state: RunnerState = {
    ...freshState(),
    ...started.state,
    session: 't',
    phase: { value: 'idle', source: 'error', detail: 'unexpected status 529', at: NOW + 1 },
    lastError: { at: NOW + 1, message: 'unexpected status 529' },
  }
  const r = codexAdapter.exited(exit(1), state, NOW + 2, spec())
  assert.is(r.end, false)
  assert.is(r.state?.spawnError, undefined)
  assert.equal(r.state?.phase, { value: 'idle', source: 'error', detail: 'unexpected status 529', at: NOW + 2 })
})

test('a stop ends the conversation whatever the exit', () => {
  assert.equal(codexAdapter.exited(exit(null, { signal: 'SIGTERM', stopping: true }), freshState(), NOW, spec()), {
    end: true,
  })
})

test('sigterm: the turn hangs, working, with no usage', () => {
  const r = replay(codexAdapter, turn('sigterm', 1))
  assert.equal(r.phases, ['working'])
  assert.is(r.state.usage, undefined)
})

test('codex takes no answers and never needs you', () => {
  assert.is(codexAdapter.answer, undefined)
  for (const scenario of ['basic', 'slow', 'login', 'sigterm']) {
    const r = replay(codexAdapter, turn(scenario, 1))
    assert.not.ok(
      r.phases.some((p) => p.startsWith('needs-you')),
      scenario,
    )
  }
})

// ---- errors, retries and warnings, as the real CLI reports them ----

const event = (ev: Record<string, unknown>) => JSON.stringify(ev)
const running = (): RunnerState => ({
  ...freshState(),
  phase: { value: 'working', source: 'stream: turn.started', at: NOW },
})

test('Reconnecting error events: working (retrying: …) in codex’s words; an item is progress; other errors are the turn’s error', () => {
  const r = codexAdapter.stdoutLine(
    event({ type: 'error', message: 'Reconnecting... 2/5 (unexpected status 401 Unauthorized)' }),
    running(),
    NOW,
  )
  assert.equal(r.state, {
    phase: {
      value: 'working',
      source: 'retrying',
      detail: 'Reconnecting... 2/5 (unexpected status 401 Unauthorized)',
      at: NOW,
    },
  })
  const item = codexAdapter.stdoutLine(
    event({ type: 'item.completed', item: { type: 'agent_message', text: 'ok' } }),
    { ...running(), ...r.state },
    NOW + 1,
  )
  assert.equal(item.state?.phase, { value: 'working', source: 'stream: item.completed', at: NOW + 1 })
  const fatal = codexAdapter.stdoutLine(
    event({ type: 'error', message: 'unexpected status 401 Unauthorized' }),
    running(),
    NOW,
  )
  assert.equal(fatal.state, { lastError: { at: NOW, message: 'unexpected status 401 Unauthorized' } })
})

test('error items are warnings: said in the transcript, never the evidence', () => {
  const r = codexAdapter.stdoutLine(
    event({
      type: 'item.completed',
      item: { id: 'item_0', type: 'error', message: 'Model metadata for `x` not found.' },
    }),
    running(),
    NOW,
  )
  assert.equal(r, { transcript: [{ kind: 'system', text: 'warning: Model metadata for `x` not found.' }] })
})

test('a turn the runner gave up on is idle (error: …) whichever turn it was, and the runner goes on; the stderr banner is never a reason', () => {
  const gaveUp = {
    at: NOW,
    message: 'Reconnecting... waiting for network (retried 600 s without progress; turn interrupted)',
  }
  for (const turns of [0, 3]) {
    const r = codexAdapter.exited(exit(null, { signal: 'SIGTERM' }), { ...running(), turns, gaveUp }, NOW + 1, spec())
    assert.is(r.end, false)
    assert.equal(r.state?.phase, { value: 'idle', source: 'error', detail: gaveUp.message, at: NOW + 1 })
    assert.is(r.state?.spawnError, undefined)
    assert.ok('gaveUp' in r.state! && r.state.gaveUp === undefined)
  }
  const banner = codexAdapter.exited(
    exit(1, { stderrTail: ['Reading additional input from stdin...', ''] }),
    running(),
    NOW,
    spec(),
  )
  assert.is(banner.state?.spawnError?.message, 'codex exited with code 1')
})

test('a later turn that crashes says how it ended, never an earlier turn’s error', () => {
  const state: RunnerState = {
    ...running(),
    turns: 2,
    session: 't',
    lastError: { at: NOW - 50, message: 'an earlier turn failed' },
    phase: { value: 'working', source: 'stream: turn.started', at: NOW - 10 },
  }
  const r = codexAdapter.exited(exit(null, { signal: 'SIGKILL' }), state, NOW, spec())
  assert.equal(r.state?.phase, { value: 'idle', source: 'error', detail: 'codex was killed by SIGKILL', at: NOW })
  const own = codexAdapter.exited(
    exit(1),
    { ...state, lastError: { at: NOW - 5, message: 'stream disconnected before completion' } },
    NOW,
    spec(),
  )
  assert.is(own.state?.phase?.detail, 'stream disconnected before completion')
})

// ---- the estimate ----

test('prices: the longest model prefix in the table, else the default family', () => {
  assert.equal(pricesFor('gpt-5-codex'), [1.25, 0.125, 10])
  assert.equal(pricesFor('gpt-5-mini-2025'), [0.25, 0.025, 2])
  assert.equal(pricesFor('o4-mini'), [1.1, 0.275, 4.4])
  assert.equal(pricesFor('some-new-model'), [1.25, 0.125, 10])
  assert.equal(pricesFor(undefined), [1.25, 0.125, 10])
  assert.is(estimateUsd('gpt-5', { input: 1_000_000, cachedInput: 0, output: 0 }), 1.25)
  assert.is(estimateUsd('gpt-5', { input: 1_000_000, cachedInput: 1_000_000, output: 1_000_000 }), 10.125)
})

test.run()
