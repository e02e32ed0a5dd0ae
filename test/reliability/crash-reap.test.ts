import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SEQ_LANES, launchLane, newRoot, reportLane, walkPart, type SeqLane } from './crash-kit.js'
import { recordFigure } from './figures.js'

// The scripted sequence's reaps: its lanes launched and reported unarmed (the launches' kill points are
// crash-launch.test.ts's, the reports' crash.test.ts's), then each reaped, killed at every fault point of the reap.

test('the kernel killed at every store write step of the reaps of a play lane and a builder: after each restart the store parses and holds every acknowledged write', async () => {
  const { kills, acknowledged } = await walkPart('crash-reap', async (w) => {
    const root = await newRoot(w.port)
    w.acks.push({ kind: 'conv', id: root })
    const lanes: SeqLane[] = []
    for (const [key, role] of SEQ_LANES) {
      const lane = await launchLane(w, w.port, root, key, role)
      await reportLane(w, w.port, lane)
      lanes.push(lane)
    }
    for (const l of lanes) {
      // Each attempt after the first reaps a lane of its own, launched and reported as the first was.
      let lane = l
      let spare = 0
      const fresh = async () => {
        lane = await launchLane(w, w.port, root, `${l.key}-s${++spare}`, l.role)
        await reportLane(w, w.port, lane)
      }
      await w.everyPoint(
        `reap-${l.name}`,
        async (port) => {
          await port.laneReap({ lane: lane.id })
          w.acks.push({ kind: 'reap', id: lane.id })
        },
        fresh,
      )
    }
  })
  assert.ok(kills >= 10, `two reaps have many write steps (${kills})`)
  recordFigure(
    'kernel killed at each store write step of the reaps of two reported lanes (play, builder)',
    `${kills} kill points, ${acknowledged} acknowledged writes checked after restart, 0 lost`,
  )
})

test.run()
