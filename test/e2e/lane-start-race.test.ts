import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { LaneWorld, parseLine, startLine, type Snapshot } from './lane-start-kit.js'

// SPEC.md 4.1 start, launch rule 3 under load: concurrent launches of one run, key and role give exactly one lane,
// one directory and (for a builder) one branch; every other launch is refused with exit 1 and leaves nothing.

const ROUNDS = 20
const RACERS = 10
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
    // Most rounds race lanes that stay starting; every fifth races real shell processes.
    const harness = round % 5 === 4 ? ['--harness', 'shell', '--prompt', 'sleep 30'] : ['--harness', 'none', '--prompt', 'x']
    const args = ['--run', 'race', '--key', key, '--role', role, '--model', 'm', '--no-wait', ...harness]
    const before = await w.snapshot()
    const results = await Promise.all(Array.from({ length: RACERS }, () => w.start(args)))
    const what = `round ${round} (${role}, ${harness[1]})`
    const won = results.filter((r) => r.code === 0)
    assert.is(won.length, 1, `${what}: exactly one start succeeds: ${JSON.stringify(results.map((r) => r.stderr || r.stdout))}`)
    const l = parseLine(won[0].stdout)
    const dir = role === 'builder' ? `race-${key}` : role === 'orchestrator' ? `race-${key}-orch` : role === 'verifier' ? `race-${key}-verify-i1` : `race-${key}-play-i1`
    assert.is(won[0].stdout, startLine('race', key, role, 1, l.id, `race-${key}-${role}-i1`, `${w.lanes}/${dir}`), what)
    for (const r of results.filter((r) => r.code !== 0)) {
      assert.is(r.code, 1, what)
      assert.is(r.stderr, `svc: lane race/${key} ${role} i1 is live (conv ${l.id}); pass --replace to stop it and launch anew\n`, what)
      assert.is(r.stdout, '', what)
    }
    const after = await w.snapshot()
    assert.equal(added(after.lanes, before.lanes), [dir], `${what}: one directory`)
    assert.equal(added(branches(after), branches(before)), role === 'builder' ? [`race/${key}`] : [], `${what}: one branch for a builder, none otherwise`)
    assert.is(added(after.worktrees, before.worktrees).length, role === 'play' ? 0 : 1, `${what}: one worktree for a git-backed lane`)
    assert.is(after.convs, before.convs + 1, `${what}: one conversation`)
  }
})

test('issue 16 item 2: two lanes whose <run>-<key> is one path (c<n>-a/b and c<n>/a-b) launched at once, 6 rounds: one gets the directory, the other is refused on one line', async () => {
  await w.begin()
  for (let round = 0; round < 6; round++) {
    const role = (['builder', 'play', 'orchestrator'] as const)[round % 3]
    const dir = { builder: `c${round}-a-b`, play: `c${round}-a-b-play-i1`, orchestrator: `c${round}-a-b-orch` }[role]
    const launch = (run: string, key: string) => w.start(['--run', run, '--key', key, '--role', role, '--model', 'm', '--harness', 'none', '--prompt', 'x', '--no-wait'])
    const before = await w.snapshot()
    const results = await Promise.all([launch(`c${round}-a`, 'b'), launch(`c${round}`, 'a-b')])
    const what = `round ${round} (${role}): ${JSON.stringify(results.map((r) => r.stderr || r.stdout))}`
    const won = results.filter((r) => r.code === 0)
    assert.is(won.length, 1, what)
    const lost = results.find((r) => r.code !== 0)!
    assert.is(lost.code, 1, what)
    assert.is(lost.stdout, '', what)
    const path = `${w.lanes}/${dir}`
    const reasons = [`another launch is making ${path} right now`, `${path} is the directory of lane .*, which is not reaped; reap it first \\(svc lane reap \\d+\\)`, `${path} already exists; reap the lane that used it or move it away`]
    assert.match(lost.stderr, new RegExp(`^svc: refused: (${reasons.join('|')})\n$`), what)
    const after = await w.snapshot()
    assert.equal(added(after.lanes, before.lanes), [dir], `${what}: one directory`)
    assert.equal(added(branches(after), branches(before)), role === 'builder' ? [parseLine(won[0].stdout).run + '/' + parseLine(won[0].stdout).key] : [], `${what}: the winner's branch only`)
    assert.is(added(after.worktrees, before.worktrees).length, role === 'play' ? 0 : 1, `${what}: one worktree for a git-backed lane`)
    assert.is(after.convs, before.convs + 1, `${what}: one conversation`)
  }
})

test.run()
