import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git, until } from '../helpers/home.js'
import { World } from './lane-views-kit.js'

// A lane's git facts follow its worktree: read once, then again only when the worktree moves (watched) or its lane
// reports; a change is announced as the lane's `git` change, with no request asking. A filtered deck reads only the
// lanes it shows.

let w: World
test.before.each(async () => {
  w = await new World('git-watch').begin()
})
test.after.each(async () => {
  await w.stop()
})

/** Wait for the kernel to announce a `git` change of the lane, without asking for any list or lane meanwhile.
 * `act` makes the change, again after each second without news: the watch of a worktree is set up as it is first
 * read, and a loaded machine may still be setting it up when the first change comes. */
async function gitChange(after: number, name: string, act: () => void): Promise<number> {
  const port = await w.h.port()
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    act()
    const r = await port.changes({ after, timeoutMs: 1000 })
    if (r.changes.some((c) => c.name === name && c.what === 'git')) return r.last
    after = r.last
  }
  throw new Error(`no git change of ${name} was announced`)
}

test('an edit deep in a worktree, then a commit, are announced as git changes of its lane and shown without a re-read of the rest', async () => {
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', w.gate('end')])
  // The lane that stays still runs no harness: a harness's start writes its state, and the kernel hears of that write
  // when its watcher says so, which may be after the test has read the lane's facts (they would then be read again,
  // rightly, for the state change). With no harness nothing but the launch touches its lane, and that is done here.
  await w.idleLane('c')
  const dir = join(w.lanes, 'r1-b')
  // A directory below the top one: a file written there changes neither HEAD, the index nor the top directory.
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true })
  const port = await w.h.port()
  const first = await port.laneGet({ lane: 'r1-b-builder-i1' })
  assert.is(first.git?.dirty, false)
  let last = (await port.changes({ after: 0, timeoutMs: 0 })).last

  let n = 0
  last = await gitChange(last, 'r1-b-builder-i1', () =>
    writeFileSync(join(dir, 'src', 'deep', `new-${n++}.txt`), 'new\n'),
  )
  const edited = await port.laneGet({ lane: 'r1-b-builder-i1' })
  assert.is(edited.git?.dirty, true)
  assert.is(edited.git?.head, first.git?.head)

  const other = await port.laneGet({ lane: 'r1-c-builder-i1' })
  await gitChange(last, 'r1-b-builder-i1', () => {
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', `deep ${n++}`, '--allow-empty')
  })
  const committed = await port.laneGet({ lane: 'r1-b-builder-i1' })
  assert.is(committed.git?.head, git(dir, 'rev-parse', 'HEAD'))
  assert.is.not(committed.git?.head, first.git?.head)
  assert.is(committed.git?.dirty, false)
  // The worktree that did not move was not read again: its facts are those of the first read.
  assert.is((await port.laneGet({ lane: 'r1-c-builder-i1' })).git?.asOf, other.git?.asOf)
  w.open('end')
})

test('the deck filtered to one run reads and answers that run alone (its lanes, their launchers, their counts); the inbox and the runs stay whole', async () => {
  await w.start(['--key', 'a', '--role', 'play', '--prompt', 'exit 0'], 'r1')
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', 'exit 0'], 'r1')
  await w.start(['--key', 'x', '--role', 'builder', '--prompt', 'exit 0'], 'r2')
  const asking = await w.start(
    ['--key', 'q', '--role', 'builder', '--prompt', `svc conv mark needs-you --reason question\n${w.gate('end')}`],
    'r3',
  )
  const port = await w.h.port()
  await until(async () => (await port.convShow({ conv: asking })).activity === 'needs-you', 'q waits on a person')
  const all = await port.deckTree({})
  assert.equal(
    Object.values(all.lanes)
      .map((l) => l.run)
      .sort(),
    ['r1', 'r1', 'r2', 'r3'],
  )
  const one = await port.deckTree({ run: 'r2' })
  assert.equal(
    Object.values(one.lanes).map((l) => `${l.run}/${l.key}`),
    ['r2/x'],
  )
  assert.equal(Object.keys(one.conversations).sort(), [w.s.root, Object.keys(one.lanes)[0]].sort())
  assert.equal(Object.keys(one.counts), ['r2'])
  assert.equal(one.runs, ['r1', 'r2', 'r3'], 'every run is offered, whatever the filter')
  assert.equal(
    one.inbox.map((e) => e.id),
    [asking],
    'the inbox holds who waits in every run',
  )
  w.open('end')
})

test.run()
