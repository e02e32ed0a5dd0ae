import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SEQ_LANES, launchLane, newRoot, reportLane, walkPart, type SeqLane } from './crash-kit.js'
import { recordFigure } from './figures.js'

// The scripted sequence's first part: the conversation, the launches of its three lanes, and a report of each. The
// reaps (crash-reap.test.ts) and the worker (crash-worker.test.ts) are the parts after it.

test('the kernel killed at every store write step of three launches and their reports: after each restart the store parses and holds every acknowledged write', async () => {
  const { kills, acknowledged } = await walkPart('crash', async (w) => {
    const root = await w.everyPoint('conv', newRoot)
    w.acks.push({ kind: 'conv', id: root })
    const lanes: SeqLane[] = []
    for (const [key, role] of SEQ_LANES)
      lanes.push(await w.everyPoint(`start-${key}`, (port, j) => launchLane(w, port, root, `${key}-${j}`, role)))
    for (const l of lanes) await w.everyPoint(`report-${l.name}`, (port) => reportLane(w, port, l))
  })
  assert.ok(kills >= 20, `three launches and reports have many write steps (${kills})`)
  recordFigure(
    'kernel killed at each store write step of three launches (play, builder, play) and a report of each',
    `${kills} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost`,
  )
})

test.run()
