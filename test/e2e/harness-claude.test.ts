import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fakeHarnessHome, harnessLog, rpc, trackActivity, untilActivity } from '../helpers/activity.js'
import { TestHome, alive, until } from '../helpers/home.js'
import { setupProject } from '../helpers/project.js'

/** The claude harness end to end: the real `svc`, kernel and runners driving the fake `claude` (fixtures/bin first
 * on the kernel's PATH), which checks its arguments and replays recorded stream-json sessions. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let f: ReturnType<typeof fakeHarnessHome>
let h: TestHome
let log: string
test.before.each(() => {
  f = fakeHarnessHome('claude')
  ;({ h, log } = f)
})
test.after.each(async () => {
  await h.stop()
})

const stdinOf = (type: string) => harnessLog(log).filter((r) => r.event === 'stdin' && r.type === type)

test('a permission, a question and a plan: each needs-you with its request, each answered, working in between, idle at the end', async () => {
  const id = await f.convNew('scenario:asks Set up the storage layer', '--model', 'claude-test-1', '--effort', 'high')
  const track = trackActivity(h, id)

  const perm = await untilActivity(h, id, 'needs-you (permission)')
  assert.equal(perm.pending.kind, 'permission')
  assert.equal(perm.pending.tool, 'Bash')
  assert.equal(perm.pending.input, { command: 'rm -rf build', description: 'Remove the stale build directory' })
  assert.equal(perm.evidence.source, 'stream: can_use_tool')
  assert.is(await h.ok(['conv', 'answer', id, 'allow']), `answered conv ${id} (c${id}): allow (permission: Bash)\n`)

  const q = await untilActivity(h, id, 'needs-you (question)')
  assert.equal(q.pending.input.questions[0].question, 'Which database should the new service use?')
  const noAnswer = await h.svc(['conv', 'answer', id, 'allow'])
  assert.is(noAnswer.code, 1)
  assert.is(noAnswer.stderr, `svc: conv ${id} (c${id}) asks a question: answer it with allow --message <answer>\n`)
  assert.is(await h.ok(['conv', 'answer', `conv-c${id}`, 'allow', '--message', 'Postgres']), `answered conv ${id} (c${id}): allow (question: AskUserQuestion)\n`)

  await untilActivity(h, id, 'needs-you (plan)')
  const shown = await h.ok(['conv', 'show', id])
  assert.match(shown, 'activity: needs-you (plan) (stream: can_use_tool: ExitPlanMode,')
  assert.match(shown, 'waits on: plan (ExitPlanMode) {"plan":"1. Add the storage module\\n2. Migrate the schema\\n3. Run the test suite"}; answer with svc conv answer\n')
  const wrong = await h.svc(['conv', 'answer', id, 'maybe'])
  assert.is(wrong.code, 1)
  assert.is(wrong.stderr, "svc: the answer must be allow or deny, not 'maybe'\n")
  assert.is(await h.ok(['conv', 'answer', id, 'deny', '--message', 'smaller steps, please']), `answered conv ${id} (c${id}): deny (plan: ExitPlanMode)\n`)

  const idle = await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'needs-you (permission)', 'working', 'needs-you (question)', 'working', 'needs-you (plan)', 'working', 'idle'])
  assert.is(idle.evidence.source, 'stream: result')
  assert.is(idle.model, 'claude-test-1')
  assert.equal(idle.cost, { usd: 0.0587, estimated: false })
  assert.is(idle.pending, undefined)

  // What the CLI was started with and what it was sent.
  const [start] = f.starts()
  assert.equal(start.argv.slice(0, 10), ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--model', 'claude-test-1', '--effort', 'high'])
  assert.is(start.argv[10], '--session-id')
  assert.match(start.argv[11], UUID)
  assert.equal(start.argv.slice(12), ['--permission-prompt-tool', 'stdio'])
  assert.is(start.cwd, h.home)
  assert.is(start.env.SERVICE_CONVERSATION, id)
  assert.ok(start.svcOnPath, 'svc is on the harness PATH')
  const responses = stdinOf('control_response').map((r) => r.line.response)
  assert.equal(responses.map((r) => [r.request_id, r.response.behavior]), [
    ['1f6c0e9a-perm', 'allow'],
    ['2a7d1fb0-question', 'allow'],
    ['3b8e20c1-plan', 'deny'],
  ])
  assert.equal(responses[1].response.updatedInput.answers, { 'Which database should the new service use?': 'Postgres' })
  assert.is(responses[2].response.message, 'smaller steps, please')
  const lines = await f.transcript(id)
  assert.ok(lines.includes(`system session ${start.argv[11]} model claude-test-1`))
  assert.ok(lines.includes('user deny (plan: ExitPlanMode): smaller steps, please'))
  assert.ok(lines.includes('assistant Answers received: allow, allow, deny.'))

  const late = await h.svc(['conv', 'answer', id, 'allow'])
  assert.is(late.code, 1)
  assert.is(late.stderr, `svc: conv ${id} (c${id}) is idle; it waits on no answer\n`)
})

test('tell: a message during a turn is held until the result, then sent; working throughout; tell when idle starts a turn; the cost adds up', async () => {
  const id = await f.convNew('scenario:slow A long task', '--model', 'claude-test-2')
  const track = trackActivity(h, id)
  await untilActivity(h, id, 'working')
  assert.is(await h.ok(['tell', id, 'first extra']), `sent to conv ${id} (c${id})\n`)
  await h.ok(['tell', id, 'second extra'])
  await until(async () => (await f.transcript(id)).filter((l) => l === 'system held until the current turn ends').length === 2, 'both messages held')
  writeFileSync(join(h.home, 'release-turn'), '') // the recorded turn runs until this file exists
  const v = await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'idle'], 'never idle between the held messages and their turn')
  assert.equal(v.cost, { usd: 0.0143, estimated: false })
  const users = stdinOf('user')
  assert.equal(users.map((u) => [u.line.message.content, u.midTurn]), [
    ['scenario:slow A long task', false],
    ['first extra\n\nsecond extra', false],
  ])
  assert.ok((await f.transcript(id)).includes('assistant You said: first extra\n\nsecond extra'))

  const again = trackActivity(h, id)
  await h.ok(['tell', id, 'third'])
  const done = await untilActivity(h, id, 'working').then(() => untilActivity(h, id, 'idle'))
  assert.equal(await again.stop(), ['idle', 'working', 'idle'])
  assert.equal(done.cost, { usd: 0.0185, estimated: false })
  assert.is(done.evidence.source, 'stream: result')
})

test('stop: an interrupt request on stdin, then the process ends; stopped', async () => {
  const id = await f.convNew('scenario:basic Read the code')
  await untilActivity(h, id, 'idle')
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  const v = await rpc(h, 'convShow', { conv: id })
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.source, 'stop (SIGTERM)')
  assert.is(v.evidence.detail, 'exit code 0')
  assert.equal(stdinOf('control_request').map((r) => r.line.request), [{ subtype: 'interrupt' }])
  assert.not.ok(alive(state.harness.pid))
  assert.not.ok(alive(state.runner.pid))
})

test('SIGTERM without a result: a harness stuck in its turn ignores the interrupt and is ended by signal; stopped, no result', async () => {
  const id = await f.convNew('scenario:sigterm Run everything')
  await until(async () => (await f.transcript(id)).some((l) => l.startsWith('assistant Running the whole suite')), 'the turn under way')
  assert.is((await rpc(h, 'convShow', { conv: id })).activity, 'working')
  assert.is(await h.ok(['conv', 'stop', id]), `conv ${id} (c${id}) stopped\n`)
  const v = await rpc(h, 'convShow', { conv: id })
  assert.is(v.activity, 'stopped')
  assert.is(v.evidence.detail, 'signal SIGTERM')
  assert.is(v.cost, undefined)
  const lines = await f.transcript(id)
  assert.not.ok(lines.some((l) => l.startsWith('system result:')), 'no result event')
  assert.ok(lines.includes('system harness exited (SIGTERM)'))
  assert.is(stdinOf('control_request').length, 1, 'the interrupt was sent')
})

test('failed login: failed-to-start with the CLI’s own text; nothing takes messages', async () => {
  const id = await f.convNew('scenario:login Do work')
  const v = await untilActivity(h, id, 'failed-to-start')
  assert.is(v.evidence.source, 'spawn')
  assert.is(v.evidence.detail, 'Invalid API key · Please run /login')
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
  await until(() => !alive(state.harness.pid) && !alive(state.runner.pid), 'the CLI ends once its input is closed')
  const r = await h.svc(['tell', id, 'hello?'])
  assert.is(r.code, 1)
  assert.is(r.stderr, `svc: conv ${id} (c${id}) is failed-to-start; the message would not reach it\n`)
})

test('a CLI that does not know a flag: failed-to-start with its error line', async () => {
  h.extraEnv.FAKE_CLAUDE_REJECT = '--effort'
  const id = await f.convNew('scenario:basic hi', '--effort', 'low')
  const v = await untilActivity(h, id, 'failed-to-start')
  assert.is(v.evidence.detail, "claude exited with code 1: error: unknown option '--effort'")
})

test('lanes: a builder on claude with model and effort goes through its requests; a play lane gets no service context and no project settings', async () => {
  const s = await setupProject(h)
  const r = await h.svc(['lane', 'start', '--key', 'store', '--role', 'builder', '--run', 'r1', '--harness', 'claude', '--model', 'claude-test-3', '--effort', 'low', '--prompt', 'scenario:asks build the store'], { env: s.env })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.stdout, `Lane r1/store builder i1: conv ${Number(s.root) + 1} (r1-store-builder-i1) in ${s.lanesRoot}/r1-store\n`)
  const lane = 'conv-r1-store-builder-i1'
  for (const [want, answer] of [
    ['needs-you (permission)', ['allow']],
    ['needs-you (question)', ['allow', '--message', 'SQLite']],
    ['needs-you (plan)', ['allow']],
  ] as const) {
    await untilActivity(h, lane, want)
    await h.ok(['conv', 'answer', lane, ...answer])
  }
  const v = await untilActivity(h, lane, 'idle')
  assert.is(v.model, 'claude-test-3')
  assert.equal(v.cost, { usd: 0.0587, estimated: false })
  assert.is(v.lane.role, 'builder')
  const builder = f.starts().find((x) => x.cwd === `${s.lanesRoot}/r1-store`)
  assert.equal(builder.argv.slice(6, 10), ['--model', 'claude-test-3', '--effort', 'low'])
  assert.is(builder.env.SERVICE_CONVERSATION, v.id)
  assert.match((await f.transcript(lane))[0], 'session ')

  const p = await h.svc(['lane', 'start', '--key', 'toy', '--role', 'play', '--run', 'r1', '--harness', 'claude', '--model', 'claude-test-3', '--prompt', 'scenario:basic play freely'], { env: s.env })
  assert.is(p.code, 0, p.stderr)
  await untilActivity(h, 'conv-r1-toy-play-i1', 'idle')
  const play = f.starts().find((x) => x.cwd === `${s.lanesRoot}/r1-toy-play-i1`)
  assert.equal(play.argv.slice(-4), ['--permission-prompt-tool', 'stdio', '--setting-sources', 'user'])
  assert.equal(play.env, {}, 'no SERVICE_* variable')
  assert.is(play.svcOnPath, false)
})

test.run()
