import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CODEX_USAGE_BASIS, estimateUsd } from '../../kernel/domain/token-cost.js'
import { fakeHarnessHome, rpc, trackActivity, untilActivity } from '../helpers/activity.js'
import { TestHome, alive, until } from '../helpers/home.js'
import { setupProject } from '../helpers/project.js'

/** The codex harness end to end: `codex exec --json` per turn (the fake, first on the kernel's PATH), the runner
 * alive and waiting between turns, further messages by `codex exec resume <thread_id>`. */

let f: ReturnType<typeof fakeHarnessHome>
let h: TestHome
test.before.each(() => {
  f = fakeHarnessHome('codex')
  h = f.h
})
test.after.each(async () => {
  await h.stop()
})

const stateOf = (id: string) => JSON.parse(readFileSync(join(h.service, 'agents', `conv-c${id}`, 'state.json'), 'utf8'))
const TURN1 = { input: 24763, cachedInput: 24448, output: 122 }
/** Codex reports a resumed turn's usage as the thread's running total. */
const TURN2 = { input: 50873, cachedInput: 49152, output: 180 }

test('one turn per process: working → idle; alive is the runner waiting; tell resumes the thread; the cost is an estimate from tokens', async () => {
  const id = await f.convNew('scenario:basic Fix the login form', '--model', 'gpt-5-codex', '--effort', 'medium')
  const track = trackActivity(h, id)
  const idle = await untilActivity(h, id, 'idle')
  assert.equal(await track.stop(), ['working', 'idle'])
  assert.is(idle.evidence.source, 'stream: turn.completed')
  assert.is(idle.model, 'gpt-5-codex')
  assert.equal(idle.cost, { usd: estimateUsd('gpt-5-codex', TURN1), estimated: true, basis: CODEX_USAGE_BASIS })
  assert.match(await h.ok(['conv', 'show', id]), '\ncost: $0.00 (estimate)\n')

  const [first] = f.starts()
  assert.equal(first.argv, ['exec', '--json', '-C', h.home, '-m', 'gpt-5-codex', '-c', 'model_reasoning_effort="medium"', '-s', 'workspace-write', '--skip-git-repo-check', '--', 'scenario:basic Fix the login form'])
  assert.is(first.env.SERVICE_CONVERSATION, id)
  const state = stateOf(id)
  assert.equal(state.harness.pid, state.runner.pid, 'the runner is the process whose life means alive')
  await until(() => !alive(first.pid), 'codex exits after its turn')
  assert.is((await rpc(h, 'convShow', { conv: id })).activity, 'idle', 'still alive: the runner waits for messages')

  const again = trackActivity(h, id)
  assert.is(await h.ok(['tell', id, 'add notes']), `sent to conv ${id} (c${id})\n`)
  await untilActivity(h, id, 'working')
  const done = await untilActivity(h, id, 'idle')
  assert.equal(await again.stop(), ['idle', 'working', 'idle'])
  const second = f.starts()[1]
  assert.equal(second.argv.slice(-4), ['resume', state.session, '--', 'add notes'])
  assert.equal(second.argv.slice(0, 11), first.argv.slice(0, 11), 'the same model, effort and sandbox')
  assert.equal(done.cost, { usd: estimateUsd('gpt-5-codex', TURN2), estimated: true, basis: CODEX_USAGE_BASIS }, 'the running total codex reports, not added to the first turn')
  const lines = await f.transcript(id)
  assert.ok(lines.includes(`system thread ${state.session}`))
  assert.ok(lines.includes('assistant Read the brief: scenario:basic Fix the login form'))
  assert.ok(lines.includes('assistant You said: add notes'))
  assert.ok(lines.includes('tool $ bash -lc ls → exit 0'))

  const answer = await h.svc(['conv', 'answer', id, 'allow'])
  assert.is(answer.code, 1)
  assert.is(answer.stderr, `svc: conv ${id} (c${id}) is idle; it waits on no answer\n`)
})

test('messages during a turn are held and resume the thread together when it ends; working throughout', async () => {
  const id = await f.convNew('scenario:slow Build it')
  const track = trackActivity(h, id)
  await until(async () => (await f.transcript(id)).includes("tool $ bash -lc 'make build'"), 'the turn under way')
  await h.ok(['tell', id, 'also update the docs'])
  await h.ok(['tell', id, 'and the changelog'])
  await until(async () => (await f.transcript(id)).filter((l) => l === 'system held until the current turn ends').length === 2, 'both held')
  writeFileSync(join(h.home, 'release-turn'), '') // the recorded turn runs until this file exists
  await untilActivity(h, id, 'idle', 30_000)
  assert.equal(await track.stop(), ['working', 'idle'])
  const runs = f.starts()
  assert.is(runs.length, 2, 'one process for the held messages')
  assert.equal(runs[1].argv.slice(-2), ['--', 'also update the docs\n\nand the changelog'])
})

test('stop between turns ends the runner; stop during a turn ends codex by signal', async () => {
  const a = await f.convNew('scenario:basic Quick one')
  await untilActivity(h, a, 'idle')
  assert.is(await h.ok(['conv', 'stop', a]), `conv ${a} (c${a}) stopped\n`)
  const va = await rpc(h, 'convShow', { conv: a })
  assert.is(va.activity, 'stopped')
  assert.is(va.evidence.source, 'stop (SIGTERM)')
  assert.is(va.evidence.detail, 'signal SIGTERM')
  assert.ok((await f.transcript(a)).includes('system runner stopped between turns (SIGTERM)'))

  const b = await f.convNew('scenario:sigterm Test everything')
  await until(async () => (await f.transcript(b)).includes("tool $ bash -lc 'make test-all'"), 'the turn under way')
  const run = f.starts().at(-1)
  assert.is(await h.ok(['conv', 'stop', b]), `conv ${b} (c${b}) stopped\n`)
  const vb = await rpc(h, 'convShow', { conv: b })
  assert.is(vb.activity, 'stopped')
  assert.is(vb.evidence.detail, 'signal SIGTERM')
  assert.not.ok(alive(run.pid))
  assert.not.ok(alive(stateOf(b).runner.pid))
})

test('failed login: failed-to-start with codex’s message; the runner ends', async () => {
  const id = await f.convNew('scenario:login Do work')
  const v = await untilActivity(h, id, 'failed-to-start')
  assert.is(v.evidence.detail, 'codex exited with code 1: unexpected status 401 Unauthorized: Missing bearer or basic authentication in header')
  await until(() => !alive(stateOf(id).runner.pid), 'the runner ends')
  assert.is((await rpc(h, 'convShow', { conv: id })).activity, 'failed-to-start')
})

test('lanes: a builder on codex with its effort; a play lane reads no AGENTS.md and has no service context', async () => {
  const s = await setupProject(h)
  const r = await h.svc(['lane', 'start', '--key', 'api', '--role', 'builder', '--run', 'r2', '--harness', 'codex', '--model', 'gpt-5-mini', '--effort', 'low', '--prompt', 'scenario:basic build the api'], { env: s.env })
  assert.is(r.code, 0, r.stderr)
  const v = await untilActivity(h, 'conv-r2-api-builder-i1', 'idle')
  assert.equal(v.cost, { usd: estimateUsd('gpt-5-mini', TURN1), estimated: true, basis: CODEX_USAGE_BASIS })
  const builder = f.starts().find((x) => x.cwd === `${s.lanesRoot}/r2-api`)
  assert.equal(builder.argv.slice(0, 11), ['exec', '--json', '-C', `${s.lanesRoot}/r2-api`, '-m', 'gpt-5-mini', '-c', 'model_reasoning_effort="low"', '-s', 'workspace-write', '--skip-git-repo-check'])

  const p = await h.svc(['lane', 'start', '--key', 'toy', '--role', 'play', '--run', 'r2', '--harness', 'codex', '--model', 'gpt-5-mini', '--prompt', 'scenario:basic play'], { env: s.env })
  assert.is(p.code, 0, p.stderr)
  await untilActivity(h, 'conv-r2-toy-play-i1', 'idle')
  const play = f.starts().find((x) => x.cwd === `${s.lanesRoot}/r2-toy-play-i1`)
  assert.equal(play.argv.slice(4, 8), ['-m', 'gpt-5-mini', '-c', 'project_doc_max_bytes=0'])
  assert.equal(play.env, {})
  assert.is(play.svcOnPath, false)
})

test.run()
