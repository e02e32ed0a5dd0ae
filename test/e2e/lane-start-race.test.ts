import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { SvcError } from '../../kernel/domain/errors.js'
import { LaneWorld, parseLine, startLine, type Snapshot } from './lane-start-kit.js'
import { caseCount } from '../helpers/cases.js'

// SPEC.md 4.1 start, launch rule 3 under load: concurrent launches of one run, key and role give exactly one lane,
// one directory and (for a builder) one branch; every other launch is refused with exit 1 and leaves nothing.

/** Rounds of the race: each role in turn, the first round of each role with lanes that stay starting and the second
 * with real shell processes, then again (8 in every run, every role meeting both; 20 in the nightly run). */
const ROUNDS = caseCount('LANE_RACE_ROUNDS', { quick: 8, full: 20 })
const RACERS = 10
/** How many of the racers are `svc lane start` processes; the others ask the kernel's port over HTTP at the same
 * moment. The race is the kernel's (every launch reaches it as one request either way, and requests from one
 * process arrive closer together than processes that each start Node); the processes prove that the CLI's exit
 * code and lines hold under it. */
const CLI_RACERS = 2
const ROLES = ['builder', 'orchestrator', 'verifier', 'play'] as const

let w: LaneWorld
test.before.each(() => {
  w = new LaneWorld('lane-race')
})
test.after.each(async () => {
  await w.stop()
})

const added = <T>(after: T[], before: T[]) => after.filter((x) => !before.includes(x))
const branches = (s: Snapshot) => s.branches.split('\n')

test(`${RACERS} concurrent starts of one run, key and role, ${ROUNDS} rounds: one lane, ${RACERS - 1} refusals`, async () => {
  await w.begin()
  for (let round = 0; round < ROUNDS; round++) {
    const role = ROLES[round % ROLES.length]
    const key = `k${round}`
    // Every other group of four rounds races real shell processes; the others race lanes that stay starting.
    const harness =
      Math.floor(round / ROLES.length) % 2 === 1 ? (['shell', 'sleep 30'] as const) : (['none', 'x'] as const)
    const args = [
      '--run',
      'race',
      '--key',
      key,
      '--role',
      role,
      '--model',
      'm',
      '--no-wait',
      '--harness',
      harness[0],
      '--prompt',
      harness[1],
    ]
    const request = {
      run: 'race',
      key,
      role,
      model: 'm',
      noWait: true,
      harness: harness[0],
      prompt: harness[1],
      conversation: w.root,
      cwd: w.h.home,
    }
    const port = await w.h.port()
    const before = await w.snapshot()
    const [cli, http] = await Promise.all([
      Promise.all(Array.from({ length: CLI_RACERS }, () => w.start(args, { process: true }))),
      Promise.all(
        Array.from({ length: RACERS - CLI_RACERS }, () =>
          port.laneStart(request).then(
            (r) => ({ line: `${r.line}\n` }),
            (e: SvcError) => ({ error: e }),
          ),
        ),
      ),
    ])
    const what = `round ${round} (${role}, ${harness[0]})`
    const lines = [
      ...cli.filter((r) => r.code === 0).map((r) => r.stdout),
      ...http.flatMap((r) => ('line' in r ? [r.line] : [])),
    ]
    assert.is(
      lines.length,
      1,
      `${what}: exactly one start succeeds: ` +
        JSON.stringify([
          ...cli.map((r) => r.stderr || r.stdout),
          ...http.map((r) => ('line' in r ? r.line : r.error.message)),
        ]),
    )
    const l = parseLine(lines[0])
    const dir =
      role === 'builder'
        ? `race-${key}`
        : role === 'orchestrator'
          ? `race-${key}-orch`
          : role === 'verifier'
            ? `race-${key}-verify-i1`
            : `race-${key}-play-i1`
    assert.is(lines[0], startLine('race', key, role, 1, l.id, `race-${key}-${role}-i1`, `${w.lanes}/${dir}`), what)
    const live = `lane race/${key} ${role} i1 is live (conv ${l.id}); pass --replace to stop it and launch anew`
    for (const r of cli.filter((r) => r.code !== 0))
      assert.equal(r, { code: 1, stdout: '', stderr: `svc: ${live}\n` }, what)
    for (const r of http) if ('error' in r) assert.equal([r.error.code, r.error.message], ['conflict', live], what)
    const after = await w.snapshot()
    assert.equal(added(after.lanes, before.lanes), [dir], `${what}: one directory`)
    assert.equal(
      added(branches(after), branches(before)),
      role === 'builder' ? [`race/${key}`] : [],
      `${what}: one branch for a builder, none otherwise`,
    )
    assert.is(
      added(after.worktrees, before.worktrees).length,
      role === 'play' ? 0 : 1,
      `${what}: one worktree for a git-backed lane`,
    )
    assert.is(after.convs, before.convs + 1, `${what}: one conversation`)
  }
})

test('two lanes whose <run>-<key> is one path (c<n>-a/b and c<n>/a-b) launched at once, 6 rounds: one gets the directory, the other is refused on one line', async () => {
  await w.begin()
  for (let round = 0; round < 6; round++) {
    const role = (['builder', 'play', 'orchestrator'] as const)[round % 3]
    const dir = { builder: `c${round}-a-b`, play: `c${round}-a-b-play-i1`, orchestrator: `c${round}-a-b-orch` }[role]
    const launch = (run: string, key: string) =>
      w.start([
        '--run',
        run,
        '--key',
        key,
        '--role',
        role,
        '--model',
        'm',
        '--harness',
        'none',
        '--prompt',
        'x',
        '--no-wait',
      ])
    const before = await w.snapshot()
    const results = await Promise.all([launch(`c${round}-a`, 'b'), launch(`c${round}`, 'a-b')])
    const what = `round ${round} (${role}): ${JSON.stringify(results.map((r) => r.stderr || r.stdout))}`
    const won = results.filter((r) => r.code === 0)
    assert.is(won.length, 1, what)
    const lost = results.find((r) => r.code !== 0)!
    assert.is(lost.code, 1, what)
    assert.is(lost.stdout, '', what)
    const path = `${w.lanes}/${dir}`
    const reasons = [
      `another launch is making ${path} right now`,
      `${path} is the directory of lane .*, which is not reaped; reap it first \\(svc lane reap \\d+\\)`,
      `${path} already exists; reap the lane that used it or move it away`,
    ]
    assert.match(lost.stderr, new RegExp(`^svc: refused: (${reasons.join('|')})\n$`), what)
    const after = await w.snapshot()
    assert.equal(added(after.lanes, before.lanes), [dir], `${what}: one directory`)
    assert.equal(
      added(branches(after), branches(before)),
      role === 'builder' ? [parseLine(won[0].stdout).run + '/' + parseLine(won[0].stdout).key] : [],
      `${what}: the winner's branch only`,
    )
    assert.is(
      added(after.worktrees, before.worktrees).length,
      role === 'play' ? 0 : 1,
      `${what}: one worktree for a git-backed lane`,
    )
    assert.is(after.convs, before.convs + 1, `${what}: one conversation`)
  }
})

test.run()
