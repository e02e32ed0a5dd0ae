import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  claudeResultError,
  claudeRetryText,
  isCodexRetry,
  isFatalClaudeError,
  firstWork,
  nextRetryWatch,
  nextTurn,
  nothingRan,
  retryLimitMs,
  retryVerdict,
  RETRY_LIMIT_MS,
} from '../../kernel/domain/harness-signals.js'
import { codexThreadUsage, estimateUsd } from '../../kernel/domain/token-cost.js'

const NOW = 1_700_000_000_000

test('claude error kinds: which are fatal', () => {
  const table: [string | undefined, boolean][] = [
    ['authentication_failed', true],
    ['oauth_org_not_allowed', true],
    ['billing_error', true],
    ['account_on_hold', true],
    ['verification_required', true],
    ['cloud_credential_error', true],
    ['rate_limit', false],
    ['unknown', false],
    ['server_error', false],
    [undefined, false],
  ]
  for (const [kind, fatal] of table) assert.is(isFatalClaudeError(kind), fatal, String(kind))
})

test('claude result: its error text, from errors[], result or subtype; none for a success', () => {
  const table: [Record<string, unknown>, string | undefined][] = [
    [{ subtype: 'success', is_error: false, result: 'done' }, undefined],
    [{ subtype: 'success', is_error: true, result: 'API Error: 400 bad' }, 'API Error: 400 bad'],
    [{ subtype: 'error_during_execution', is_error: true, errors: ['first', 'second'] }, 'first; second'],
    [
      { subtype: 'error_max_turns', errors: ['Reached maximum number of turns (3)'] },
      'Reached maximum number of turns (3)',
    ],
    [{ subtype: 'error_during_execution', is_error: true }, 'turn ended with error_during_execution'],
    [{ subtype: 'success', is_error: false, errors: [] }, undefined],
  ]
  for (const [ev, want] of table) assert.is(claudeResultError(ev), want, JSON.stringify(ev))
})

test('retry texts: claude api_retry in words; codex Reconnecting events are retries, other errors are not', () => {
  assert.is(
    claudeRetryText({
      attempt: 2,
      max_retries: 10,
      retry_delay_ms: 1025,
      error_status: 401,
      error: 'authentication_failed',
    }),
    'API error 401 authentication_failed; retry 2/10 in 1.0 s',
  )
  assert.is(
    claudeRetryText({ attempt: 1, max_retries: 10, error_status: null, error: 'unknown' }),
    'API error unknown; retry 1/10',
  )
  const codex: [string, boolean][] = [
    ['Reconnecting... 2/5 (unexpected status 401 Unauthorized)', true],
    ['Reconnecting... waiting for network (Connection failed: error sending request)', true],
    ['unexpected status 401 Unauthorized: invalid x-api-key', false],
  ]
  for (const [m, want] of codex) assert.is(isCodexRetry(m), want, m)
})

test('retry watch: kept from the first retry while retrying, gone on progress; the limit and its verdict', () => {
  const retrying = (detail: string, at: number) => ({ value: 'working' as const, source: 'retrying', detail, at })
  const w1 = nextRetryWatch(undefined, retrying('r1', NOW), NOW)
  assert.equal(w1, { since: NOW, message: 'r1' })
  const w2 = nextRetryWatch(w1, retrying('r2', NOW + 5), NOW + 5)
  assert.equal(w2, { since: NOW, message: 'r2' })
  assert.is(nextRetryWatch(w2, { value: 'working', source: 'stream: assistant', at: NOW + 6 }, NOW + 6), undefined)
  const limits: [string | undefined, number][] = [
    [undefined, RETRY_LIMIT_MS],
    ['2500', 2500],
    ['0', RETRY_LIMIT_MS],
    ['x', RETRY_LIMIT_MS],
    ['-5', RETRY_LIMIT_MS],
  ]
  for (const [setting, want] of limits) assert.is(retryLimitMs(setting), want, String(setting))
  assert.equal(retryVerdict(undefined, NOW, 1000), { exceeded: false, inMs: 1000 })
  assert.equal(retryVerdict(w2, NOW + 400, 1000), { exceeded: false, inMs: 600 })
  assert.equal(retryVerdict(w2, NOW + 12_400, 10_000), {
    exceeded: true,
    message: 'r2 (retried 12 s without progress; turn interrupted)',
  })
})

test('codex usage of a thread: the newest running total, so three equal turns cost three times one', () => {
  const turn = { inputTokens: 1200, cachedInputTokens: 200, outputTokens: 30, reasoningOutputTokens: 0 }
  const reports = [1, 2, 3].map((n) => ({
    inputTokens: turn.inputTokens * n,
    cachedInputTokens: turn.cachedInputTokens * n,
    outputTokens: turn.outputTokens * n,
  }))
  const usage = codexThreadUsage(reports.at(-1))
  assert.equal(usage, { input: 3600, cachedInput: 600, output: 90 })
  assert.is(estimateUsd('gpt-5', usage), 3 * estimateUsd('gpt-5', codexThreadUsage(turn)))
  assert.equal(codexThreadUsage(undefined), { input: 0, cachedInput: 0, output: 0 })
  assert.equal(codexThreadUsage({ inputTokens: 'x' }), { input: 0, cachedInput: 0, output: 0 })
})

test.run()

test('nothingRan: a failure is a failure to start only before any finished turn and any work', () => {
  const rows: [string, Parameters<typeof nothingRan>[0], boolean][] = [
    ['fresh', {}, true],
    ['a finished turn', { turns: 1 }, false],
    ['work seen in the first turn', { worked: { at: NOW, detail: 'a tool call' } }, false],
  ]
  for (const [name, state, want] of rows) assert.is(nothingRan(state), want, name)
  assert.equal(firstWork({}, 'output', NOW), { worked: { at: NOW, detail: 'output' } })
  assert.equal(firstWork({ worked: { at: 1, detail: 'a tool call' } }, 'output', NOW), {}, 'only the first is kept')
})

test('nextTurn: working or needs-you opens a turn (or goes on with the open one), idle ends it', () => {
  const p = (value: 'working' | 'idle' | 'needs-you') => ({ value, source: 's', at: NOW })
  const rows: [string, Parameters<typeof nextTurn>, ReturnType<typeof nextTurn>][] = [
    ['a first message', [undefined, p('working'), NOW], { started: NOW }],
    ['idle with no first message', [undefined, p('idle'), NOW], undefined],
    ['goes on', [{ started: 1 }, p('working'), NOW], { started: 1 }],
    ['waits on the user inside the turn', [{ started: 1 }, p('needs-you'), NOW], { started: 1 }],
    ['ends', [{ started: 1 }, p('idle'), NOW], { started: 1, ended: NOW }],
    ['idle again keeps the end', [{ started: 1, ended: 5 }, p('idle'), NOW], { started: 1, ended: 5 }],
    ['a new message opens a new turn', [{ started: 1, ended: 5 }, p('working'), NOW], { started: NOW }],
    ['no phase: unchanged', [{ started: 1 }, undefined, NOW], { started: 1 }],
  ]
  for (const [name, args, want] of rows) assert.equal(nextTurn(...args), want, name)
})
