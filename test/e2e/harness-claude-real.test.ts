import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { insideConv, rpc, trackActivity, untilActivity } from '../helpers/activity.js'
import { alive, until } from '../helpers/home.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'
import { setupProject } from '../helpers/project.js'

/** The claude harness against the real Claude Code CLI (node_modules) and the stand-in model API: every flow and
 * every failure with its exact activity and evidence. */

const MODEL = 'claude-sonnet-4-5'
/** What one request of the stand-in costs on that model at list prices (1000 input, 200 cache-read, 30 output
 * tokens), as the CLI itself computes it. */
const REQUEST_USD = (1000 * 3 + 200 * 0.3 + 30 * 15) / 1e6

/** The tests whose claude runs with the suite's common settings (its retries cut to one: only the failures test
 * meets an error) share one home: none stops, kills or arms the kernel, and each makes conversations of its own. The
 * plan test, which sets the user settings' default mode, is the last of them. A test that needs another environment
 * for the CLI (no login, a short retry limit) has a home of its own. */
let shared: Promise<RealHome> | undefined
const common = () => (shared ??= realHarnessHome('claude-real', { env: { CLAUDE_CODE_MAX_RETRIES: '1' } }))
let own: RealHome | undefined
test.after.each(async () => {
  await own?.stop()
  own = undefined
})
test.after(async () => {
  await (await shared?.catch(() => undefined))?.stop()
})

test('a Bash permission allowed then denied, a question answered: needs-you each time, working between, idle with the CLI’s cumulative cost', async () => {
  const r = await common()
  const { h, api } = r
  // This conversation's requests: each carries its first message (the home's other conversations are not counted).
  const ours = () => api.turnRequests().filter((q) => q.raw.includes('scenario:bash build it'))
  const id = await r.convNew('claude', 'scenario:bash build it', '--model', MODEL, '--effort', 'high')
  const track = trackActivity(h, id)
  const perm = await untilActivity(h, id, 'needs-you (permission)')
  assert.equal([perm.pending.tool, perm.pending.input.command], ['Bash', 'echo built > built.txt'])
  await h.ok(['conv', 'answer', id, 'allow'])
  const idle = await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'needs-you (permission)', 'working', 'idle'])
  assert.is(idle.evidence.source, 'stream: result')
  assert.is(readFileSync(join(h.home, 'built.txt'), 'utf8'), 'built\n', 'the allowed command ran')
  assert.is(idle.model, MODEL)

  await h.ok(['tell', id, 'scenario:bash once more'])
  await untilActivity(h, id, 'needs-you (permission)')
  await h.ok(['conv', 'answer', id, 'deny', '--message', 'not now'])
  await untilActivity(h, id, 'idle')
  assert.ok((await r.transcript(id)).includes('tool tool error: not now'), 'the denial reached the model')

  await h.ok(['tell', id, 'scenario:ask pick one'])
  const q = await untilActivity(h, id, 'needs-you (question)')
  assert.is(q.pending.input.questions[0].question, 'Which database should the new service use?')
  await h.ok(['conv', 'answer', id, 'allow', '--message', 'Postgres'])
  const done = await untilActivity(h, id, 'idle')
  const last = ours().at(-1)!
  assert.match(last.raw, 'Postgres', 'the answer reached the model in the tool result')
  assert.equal(done.cost, { usd: Number((REQUEST_USD * ours().length).toFixed(6)), estimated: false })

  // A fork continues the session (the model sees the source's history); a handoff starts afresh. A key acts only
  // where no process tree of its conversation runs, so the source's runner is stopped first (its key kept).
  const asSource = await insideConv(h, id)
  await h.ok(['conv', 'stop', id])
  await untilActivity(h, id, 'stopped')
  const forked = (await h.ok(['fork', '--prompt', 'what did I ask first?'], { env: asSource })).trim()
  await untilActivity(h, forked, 'idle')
  const forkRequest = api.turnRequests().at(-1)!.raw
  assert.ok(
    forkRequest.includes('scenario:bash build it') && forkRequest.includes('what did I ask first?'),
    'the fork carries the history',
  )
  const handed = (await h.ok(['handoff', '--prompt', 'start over'], { env: asSource })).trim()
  await untilActivity(h, handed, 'idle')
  const handoffRequest = api.turnRequests().at(-1)!.raw
  assert.ok(
    handoffRequest.includes('start over') && !handoffRequest.includes('scenario:bash build it'),
    'a handoff starts a new session',
  )
})

test('messages during a slow turn are held and sent together when it ends; stop interrupts a running turn, then ends the CLI', async () => {
  const r = await common()
  const { h, api } = r
  // This conversation's requests: each carries its first message (the home's other conversations are not counted).
  const ours = () => api.turnRequests().filter((q) => q.raw.includes('scenario:slow a long task'))
  const id = await r.convNew('claude', 'scenario:slow a long task', '--model', MODEL)
  const track = trackActivity(h, id)
  await untilActivity(h, id, 'working')
  await until(() => ours().length === 1, 'the slow turn under way')
  await h.ok(['tell', id, 'first extra'])
  await h.ok(['tell', id, 'second extra'])
  await until(
    async () => (await r.transcript(id)).filter((l) => l === 'system held until the current turn ends').length === 2,
    'both held',
  )
  api.release()
  await until(() => ours().length === 2, 'the held messages sent')
  await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'idle'], 'never idle between the held messages and their turn')
  assert.match(ours()[1].raw, 'first extra\\n\\nsecond extra')

  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
  // A turn under way when stop comes: the interrupt request ends it ([Request interrupted by user]), then the CLI.
  await h.ok(['tell', id, 'scenario:slow again'])
  await untilActivity(h, id, 'working')
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  const v = await rpc(h, 'convShow', { conv: id })
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.source, 'stop (SIGTERM)')
  assert.not.ok(alive(state.harness.pid))
  const lines = await r.transcript(id)
  assert.ok(lines.includes('system [Request interrupted by user]'), 'the CLI ended its turn on the interrupt request')
  assert.ok(lines.some((l) => l.startsWith('error result: error_during_execution: ')))
})

test('failures on a first turn: 400 and 402 are failed-to-start with the CLI’s text; 500 after its retries too; 429 then success is idle', async () => {
  const r = await common()
  const { h } = r
  const c400 = await r.convNew('claude', 'scenario:http-400 go', '--model', MODEL)
  const c402 = await r.convNew('claude', 'scenario:http-402 go', '--model', MODEL)
  const c500 = await r.convNew('claude', 'scenario:http-500 go', '--model', MODEL)
  const c429 = await r.convNew('claude', 'scenario:http-429 go', '--model', MODEL)
  const v400 = await untilActivity(h, c400, 'failed-to-start')
  assert.is(v400.evidence.detail, 'API Error: 400 scripted bad request: messages.0.content is not accepted')
  assert.match(
    await r.activityLine(c400),
    'activity: failed-to-start (spawn: API Error: 400 scripted bad request: messages.0.content is not accepted, ',
  )
  const v402 = await untilActivity(h, c402, 'failed-to-start')
  assert.is(v402.evidence.detail, 'Credit balance is too low')
  const v500 = await untilActivity(h, c500, 'failed-to-start')
  assert.match(v500.evidence.detail, /^API Error: 500 /)
  assert.ok(
    (await r.transcript(c500)).some((l) => l.startsWith('error retrying: API error 500 server_error; retry 1/1 in ')),
    'the retry is in the transcript',
  )
  const v429 = await untilActivity(h, c429, 'idle')
  assert.is(v429.evidence.source, 'stream: result')
  assert.ok((await r.transcript(c429)).some((l) => l.startsWith('error retrying: API error 429 rate_limit; retry 1/1')))
  const list = await h.ok(['conv', 'list'])
  assert.match(list, 'failed-to-start')
  for (const id of [c400, c402])
    await until(
      async () =>
        !alive(JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8')).harness.pid),
      'the failed CLI ends',
    )
})

test('ExitPlanMode under --permission-mode plan (the user settings’ default mode): needs-you (plan), denied with a message', async () => {
  const r = await common()
  const { h, api } = r
  mkdirSync(join(h.home, '.claude'), { recursive: true })
  writeFileSync(join(h.home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'plan' } }))
  const id = await r.convNew('claude', 'scenario:plan plan the store', '--model', MODEL)
  const plan = await untilActivity(h, id, 'needs-you (plan)')
  assert.is(plan.pending.tool, 'ExitPlanMode')
  await h.ok(['conv', 'answer', id, 'deny', '--message', 'smaller steps, please'])
  await untilActivity(h, id, 'idle')
  const ours = api.turnRequests().filter((q) => q.raw.includes('scenario:plan plan the store'))
  assert.match(ours.at(-1)!.raw, 'smaller steps, please')
})

test('no login at all (no API key, no stored login): failed-to-start with the CLI’s own words; it exits, the runner ends', async () => {
  const r = (own = await realHarnessHome('claude-nologin', { env: { ANTHROPIC_API_KEY: '' } }))
  const { h } = r
  const id = await r.convNew('claude', 'hello', '--model', MODEL)
  const v = await untilActivity(h, id, 'failed-to-start')
  assert.equal([v.evidence.source, v.evidence.detail], ['spawn', 'Not logged in · Please run /login'])
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
  await until(() => !alive(state.harness.pid) && !alive(state.runner.pid), 'the CLI and the runner end')
  assert.is(r.api.requests.length, 0, 'nothing was sent')
  const tell = await h.svc(['tell', id, 'hello?'])
  assert.is(tell.stderr, `svc: conv ${id} (c${id}) is failed-to-start; the message would not reach it\n`)
})

test('a builder whose claude meets a 401 on and on: working (retrying: …) while it retries; past the retry limit the runner interrupts the turn, idle (error: …), and the wait on it ends as its turn does: exit 2, next: a message to it', async () => {
  // The retry limit (10 minutes in use), shortened; the idle limit is not shortened: the wait does not need it.
  const r = (own = await realHarnessHome('claude-401', { retryLimitMs: 5000 }))
  const { h } = r
  const s = await setupProject(h)
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
    'claude',
    '--model',
    MODEL,
    '--prompt',
    'scenario:http-401 go',
    '--no-wait',
  ]
  const started = await h.svc(args, { env: s.env })
  assert.is(started.code, 0, started.stderr)
  const id = 'conv-r1-b-builder-i1'
  const line = await r.untilActivityLine(id, 'activity: working (retrying: ')
  assert.match(
    line,
    /^activity: working \(retrying: API error 401 authentication_failed; retry \d+\/10 in \d+\.\d s, \d+s ago\)$/,
  )
  const waited = await h.svc(['lane', 'wait', 'r1-b-builder-i1'], { env: s.env, timeoutMs: 60_000 })
  assert.equal([waited.code, waited.stdout], [2, ''], waited.stderr)
  assert.match(
    waited.stderr,
    /^svc: lane r1\/b builder i1 ended its turn with no report \(idle \(error: API error 401 authentication_failed; .*turn interrupted\)\)\)\nnext: svc tell conv-r1-b-builder-i1 'Your last turn ended with an error and no report\. Go on with the brief, then file your report with svc lane report\.' && svc lane wait r1-b-builder-i1\n$/,
  )
  const idle = await untilActivity(h, id, 'idle')
  assert.is(idle.evidence.source, 'error')
  assert.match(
    idle.evidence.detail,
    /^API error 401 authentication_failed; retry \d+\/10 in \d+\.\d s \(retried \d+ s without progress; turn interrupted\)$/,
  )
  assert.match(await r.activityLine(id), 'activity: idle (error: API error 401 authentication_failed; ')
  assert.ok(
    (await r.transcript(id)).some((l) => /^error API error 401 .* turn interrupted\)$/.test(l)),
    'the interruption is in the transcript',
  )
})

test.run()
