import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { until } from '../helpers/home.js'
import { World } from './lane-views-kit.js'

// A lane that ended with no report and nobody asked it to stop has failed (domain/lane-failure): the lane views
// and the deck's counts per run say so, while its activity stays as SPEC.md 3 computes it.

let w: World
test.before.each(async () => {
  w = await new World('failed').begin()
})
test.after.each(async () => {
  await w.stop()
})

test('a lane that exits 3 or 127 with no report is failed, with the exit code as evidence; the run counts it; a reported or stopped lane is not', async () => {
  await w.start(['--key', 'three', '--role', 'play', '--prompt', 'exit 3'])
  await w.start(['--key', 'missing', '--role', 'play', '--prompt', 'no-such-command-here'])
  await w.start(['--key', 'fine', '--role', 'play', '--prompt', 'exit 0'])
  await w.start(['--key', 'stopped', '--role', 'play', '--prompt', w.gate('never')])
  const port = await w.h.port()
  await port.laneStop({ lane: 'r1-stopped-play-i1' })
  const ended = (name: string) => w.state(name)?.ended
  for (const n of ['r1-three-play-i1', 'r1-missing-play-i1', 'r1-fine-play-i1'])
    await until(() => ended(n), `${n} ended`)

  const lanes = await port.laneList({ run: 'r1' })
  const byKey = Object.fromEntries(lanes.map((l) => [l.key, l]))
  assert.is(byKey.three.activity, 'stopped')
  assert.equal(byKey.three.failed && { source: byKey.three.failed.source, detail: byKey.three.failed.detail }, {
    source: 'process exit',
    detail: 'exit code 3',
  })
  assert.is(byKey.missing.failed?.detail, 'exit code 127')
  assert.is(byKey.fine.failed, undefined, 'exit 0 is not a failure')
  assert.is(byKey.stopped.failed, undefined, 'a lane stopped on request has not failed')
  assert.is((await port.laneGet({ lane: 'r1-three-play-i1' })).failed?.detail, 'exit code 3')

  const tree = await port.deckTree({ run: 'r1' })
  assert.is(tree.counts.r1.failed, 2)
  assert.is(tree.lanes[byKey.three.id].failed?.detail, 'exit code 3')
})

test.run()
