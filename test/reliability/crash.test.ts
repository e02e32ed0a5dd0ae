import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SEQ_LANES, launchLane, newRoot, reportLane, walkPart, type SeqLane } from './crash-kit.js'
import { recordFigure } from './figures.js'

// The scripted sequence's reports: its lanes launched unarmed (the conversation's and the launches' kill points,
// with the same check of the store after each, are crash-launch.test.ts's), then a report of each, killed at every
// fault point of the report. The reaps (crash-reap.test.ts) and the worker (crash-worker.test.ts) are the parts
// after it.

test('the kernel killed at every store write step of the reports of a play lane and a builder: after each restart the store parses and holds every acknowledged write', async () => {
  const { kills, acknowledged } = await walkPart('crash', async (w) => {
    const root = await newRoot(w.port)
    w.acks.push({ kind: 'conv', id: root })
    const lanes: SeqLane[] = []
    for (const [key, role] of SEQ_LANES) lanes.push(await launchLane(w, w.port, root, key, role))
    for (const l of lanes) await w.everyPoint(`report-${l.name}`, (port) => reportLane(w, port, l))
  })
  assert.ok(kills >= 2, `two reports have write steps (${kills})`)
  recordFigure(
    'kernel killed at each store write step of a report of each of two lanes (play, builder)',
    `${kills} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost`,
  )
})

test.run()
