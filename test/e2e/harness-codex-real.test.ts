import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TURN_USAGE } from '../../fixtures/model-script.js'
import { CODEX_USAGE_BASIS, estimateUsd } from '../../kernel/domain/token-cost.js'
import { usdText } from '../../kernel/domain/format.js'
import { insideConv, rpc, trackActivity, untilActivity } from '../helpers/activity.js'
import { REFUSED_PORT, alive, until } from '../helpers/home.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'

/** The codex harness against the real Codex CLI (node_modules) and the stand-in Responses API: `codex app-server`, a
 * thread per conversation and a turn per message, every failure with its exact activity and evidence. */

const MODEL = 'gpt-5-codex'
/** The home of the test under way. The first three tests share one (none stops, kills or arms the kernel, and each
 * makes conversations of its own); the one whose model service refuses connections has its own. */
let r: RealHome
let shared: Promise<RealHome> | undefined
const common = async () => (r = await (shared ??= realHarnessHome('codex-real')))
let own: RealHome | undefined
test.after.each(async () => {
  await own?.stop()
  own = undefined
})
test.after(async () => {
  await (await shared?.catch(() => undefined))?.stop()
})

const stateOf = (id: string) =>
  JSON.parse(readFileSync(join(r.h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
const times = (n: number) => ({
  input: TURN_USAGE.input * n,
  cachedInput: TURN_USAGE.cached * n,
  output: TURN_USAGE.output * n,
})

test('codex usage: three resumed turns cost three times one turn, never more; a later failed turn is idle (error: …)', async () => {
  await common()
  const { h, api } = r
  const base = api.turnRequests().length
  const id = await r.convNew('codex', 'first turn', '--model', MODEL, '--effort', 'medium')
  const track = trackActivity(h, id)
  const one = await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'idle'])
  assert.is(one.evidence.source, 'stream: turn/completed')
  assert.equal(one.cost, { usd: estimateUsd(MODEL, times(1)), estimated: true, basis: CODEX_USAGE_BASIS })
  const thread = stateOf(id).session
  for (const text of ['second turn', 'third turn']) {
    await h.ok(['tell', id, text])
    await until(async () => (await r.transcript(id)).includes(`assistant You said: ${text}`), text)
    await untilActivity(h, id, 'idle')
  }
  const three = await rpc(h, 'convShow', { conv: id })
  assert.equal(stateOf(id).usage, times(3), 'the thread’s running total, not 1 + 2 + 3 turns')
  assert.equal(three.cost, { usd: estimateUsd(MODEL, times(3)), estimated: true, basis: CODEX_USAGE_BASIS })
  assert.is(stateOf(id).session, thread, 'one thread, resumed')
  assert.is(api.turnRequests().length - base, 3)
  assert.match(
    await h.ok(['conv', 'show', id]),
    `\ncost: ${usdText(three.cost.usd)} (estimate from ${CODEX_USAGE_BASIS})\n`,
  )
  assert.match(usdText(three.cost.usd), /^\$0\.00[1-9]\d?$/, 'a cost under a cent shows its digits, never $0.00')

  await h.ok(['tell', id, 'scenario:http-400 break'])
  const failed = await until(async () => {
    const v = await rpc(h, 'convShow', { conv: id })
    return v.evidence.source === 'error' && v
  }, 'the failed turn')
  assert.is(failed.activity, 'idle')
  assert.is(
    failed.evidence.detail,
    '{"error":{"type":"invalid_request_error","message":"scripted bad request: messages.0.content is not accepted"}}',
  )
  assert.match(await r.activityLine(id), 'activity: idle (error: {"error":{"type":"invalid_request_error"')

  // Between turns codex waits for the next message: stop ends it and the runner.
  const asSource = await insideConv(h, id)
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  const stopped = await rpc(h, 'convShow', { conv: id })
  assert.equal([stopped.activity, stopped.evidence.source], ['stopped', 'stop (SIGTERM)'])
  assert.not.ok(alive(stateOf(id).runner.pid))

  // A fork is codex's own fork of the thread: a new thread that carries the source's history. (A key acts only where
  // no process tree of its conversation runs: the source's runner has stopped, its key kept.)
  const forked = (await h.ok(['fork', '--prompt', 'carry on'], { env: asSource })).trim()
  await untilActivity(h, forked, 'idle')
  assert.is.not(stateOf(forked).session, thread)
  assert.ok((await r.transcript(forked)).includes(`system thread ${stateOf(forked).session} (forked)`))
  assert.match(api.turnRequests().at(-1)!.raw, 'third turn', 'the fork’s request carries the source’s history')
})

test('a shell command runs; messages during a slow turn are held and resume the thread together; stop ends a running turn', async () => {
  await common()
  const { h, api } = r
  const a = await r.convNew('codex', 'scenario:bash build', '--model', MODEL)
  await untilActivity(h, a, 'idle')
  assert.is(readFileSync(join(h.home, 'built.txt'), 'utf8'), 'built\n')
  assert.ok(
    (await r.transcript(a)).some(
      (l) => l.startsWith('tool $ ') && l.includes('echo built > built.txt') && l.endsWith('→ exit 0'),
    ),
  )

  const id = await r.convNew('codex', 'scenario:slow build it', '--model', MODEL)
  const track = trackActivity(h, id)
  await until(() => api.turnRequests().some((q) => q.raw.includes('scenario:slow build it')), 'the slow turn under way')
  await h.ok(['tell', id, 'also update the docs'])
  await h.ok(['tell', id, 'and the changelog'])
  await until(
    async () => (await r.transcript(id)).filter((l) => l === 'system held until the current turn ends').length === 2,
    'both held',
  )
  api.release()
  await until(
    async () => (await r.transcript(id)).includes('assistant You said: also update the docs'),
    'the held turn',
  )
  await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'idle'])
  assert.match(api.turnRequests().at(-1)!.raw, 'also update the docs\\n\\nand the changelog')

  await h.ok(['tell', id, 'scenario:slow again'])
  await untilActivity(h, id, 'working')
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  const v = await rpc(h, 'convShow', { conv: id })
  assert.is(v.activity, 'stopped')
  assert.not.ok(alive(stateOf(id).runner.pid))
})

test('a first turn refused (401 and 500 after their retries, 400, 402) is failed-to-start with codex’s text; 429 then success is idle', async () => {
  await common()
  const { h, api } = r
  const c401 = await r.convNew('codex', 'scenario:http-401 go', '--model', MODEL)
  const c400 = await r.convNew('codex', 'scenario:http-400 go', '--model', MODEL)
  const c429 = await r.convNew('codex', 'scenario:http-429 go', '--model', MODEL)
  const c402 = await r.convNew('codex', 'scenario:http-402 go', '--model', MODEL)
  const c500 = await r.convNew('codex', 'scenario:http-500 go', '--model', MODEL)
  const v401 = await untilActivity(h, c401, 'failed-to-start')
  assert.is(v401.evidence.detail, `unexpected status 401 Unauthorized: invalid x-api-key, url: ${api.url}/v1/responses`)
  assert.ok(
    (await r.transcript(c401)).includes(
      `error Reconnecting... 1/1 (unexpected status 401 Unauthorized: invalid x-api-key, url: ${api.url}/v1/responses)`,
    ),
  )
  const v400 = await untilActivity(h, c400, 'failed-to-start')
  assert.match(v400.evidence.detail, 'scripted bad request')
  const v429 = await untilActivity(h, c429, 'idle')
  assert.is(v429.evidence.source, 'stream: turn/completed')
  const v402 = await untilActivity(h, c402, 'failed-to-start')
  assert.match(v402.evidence.detail, 'Your credit balance is too low')
  const v500 = await untilActivity(h, c500, 'failed-to-start')
  assert.is(v500.evidence.detail, 'We’re currently experiencing high demand, which may cause temporary errors.')
  await until(() => !alive(stateOf(c401).runner.pid), 'the failed runner ends')
})

test('no model service at all (connection refused): working (retrying: …) for claude and codex; past the limit the turn is interrupted, idle (error: …)', async () => {
  r = own = await realHarnessHome('refused', { retryLimitMs: 5000, apiUrl: `http://127.0.0.1:${REFUSED_PORT}` })
  const { h } = r
  const cx = await r.convNew('codex', 'hello', '--model', MODEL)
  const cl = await r.convNew('claude', 'hello', '--model', 'claude-sonnet-4-5')
  const retryingLine = (id: string) => r.untilActivityLine(id, 'activity: working (retrying: ')
  assert.match(
    await retryingLine(cx),
    /^activity: working \(retrying: Reconnecting\.\.\. waiting for network \(Connection failed: error sending request\), \d+s ago\)$/,
  )
  assert.match(
    await retryingLine(cl),
    /^activity: working \(retrying: API error unknown; retry \d+\/10 in \d+\.\d s, \d+s ago\)$/,
  )
  const ix = await untilActivity(h, cx, 'idle', 20_000)
  assert.equal(
    [ix.evidence.source, ix.evidence.detail.replace(/\d+ s/, 'N s')],
    [
      'error',
      'Reconnecting... waiting for network (Connection failed: error sending request) (retried N s without ' +
        'progress; turn interrupted)',
    ],
  )
  const il = await untilActivity(h, cl, 'idle', 20_000)
  assert.is(il.evidence.source, 'error')
  assert.match(
    il.evidence.detail,
    /^API error unknown; retry \d+\/10 in \d+\.\d s \(retried \d+ s without progress; turn interrupted\)$/,
  )
  assert.match(
    await r.activityLine(cx),
    /^activity: idle \(error: Reconnecting\.\.\. waiting for network .* turn interrupted\), \d+s ago\)$/,
  )
  assert.ok(
    alive(stateOf(cx).runner.pid) && alive(stateOf(cl).harness.pid),
    'both stay alive, idle, for the next message',
  )
})

test.run()
