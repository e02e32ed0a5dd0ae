import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readdirSync } from 'node:fs'
import type { Role } from '../../kernel/domain/keys.js'
import { delimiter, join } from 'node:path'
import { git } from '../helpers/home.js'
import { Walk, verify } from './crash-kit.js'
import { recordFigure } from './figures.js'

/** The launches of the launch-kill test: a branch cut (builder), an empty directory (play), a detached worktree
 * (orchestrator). */
const LAUNCHES = [
  ['b1', 'builder'],
  ['p1', 'play'],
  ['o1', 'orchestrator'],
] as const

/** What a launch can leave in git and on disk, each of which a lane's record must claim. */
function unclaimed(checkout: string, lanesRoot: string, lanes: { cwd: string; branch?: string }[]): string[] {
  const cwds = new Set(lanes.map((l) => l.cwd))
  const branches = new Set(lanes.map((l) => l.branch).filter(Boolean))
  const worktrees = git(checkout, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ') && l !== `worktree ${checkout}`)
    .map((l) => l.slice(9))
  const dirs = existsSync(lanesRoot) ? readdirSync(lanesRoot).map((d) => join(lanesRoot, d)) : []
  const laneBranches = git(checkout, 'branch', '--list', 'crash/*', '--format=%(refname:short)')
    .split('\n')
    .filter(Boolean)
  return [
    ...worktrees.filter((d) => !cwds.has(d)).map((d) => `worktree ${d}`),
    ...dirs.filter((d) => !cwds.has(d)).map((d) => `directory ${d}`),
    ...laneBranches.filter((b) => !branches.has(b)).map((b) => `branch ${b}`),
  ]
}

// The scripted sequence's conversation and launches, walked here for every check a kill at one of their points calls
// for: the store holds every acknowledged write, nothing is left that no lane record claims, the doctor finds no
// leftover, and the cut launch succeeds when tried again. Their reports are crash.test.ts's.

test('the kernel killed at each step of a launch: after the restart the store holds every acknowledged write, nothing is left that no lane record claims, svc doctor finds nothing, and each launch cut short succeeds when tried again', async () => {
  let root: string | undefined
  /** The launch the last kill cut short, tried again after the restart. */
  let cut: { key: string; role: string } | undefined
  const w = new Walk('crash-launch', async (w) => {
    await verify(w.port, w.acks)
    const lanes = await w.port.laneList({})
    const where = `killed after ${lanes.length} launches`
    assert.equal(
      unclaimed(w.checkout, `${w.checkout}-lanes`, lanes),
      [],
      `${where}: nothing left that no lane record claims`,
    )
    const { checks } = await w.port.doctor({})
    assert.equal(
      checks.filter((c) => c.name === 'interrupted launch'),
      [],
      `${where}: svc doctor finds no leftover`,
    )
    if (!root) {
      root = (await w.port.convNew({ harness: 'none', project: 'sample' })).id
      w.acks.push({ kind: 'conv', id: root })
    }
    // Nothing changed since the first look unless the cut launch is made again.
    if (cut && !lanes.some((l) => l.key === cut!.key)) {
      const r = await w.port.laneStart({
        conversation: root,
        run: 'crash',
        key: cut.key,
        role: cut.role as Role,
        prompt: 'x',
        noWait: true,
      })
      w.acks.push({ kind: 'lane', id: r.lane.id })
      assert.ok(existsSync(r.lane.cwd), `${where}: ${cut.key} launched again`)
      assert.equal(
        unclaimed(w.checkout, `${w.checkout}-lanes`, await w.port.laneList({})),
        [],
        `${where}: after the launch again`,
      )
    }
  })
  // The walk's lanes have no harness, so its kernels need no harness program: with the package binaries off their
  // PATH, the doctor asked after each kill probes no claude or codex (their start and login check cost about half a
  // second of processor time each time).
  w.h.extraEnv = {
    PATH: (process.env.PATH ?? '')
      .split(delimiter)
      .filter((d) => !d.endsWith(join('node_modules', '.bin')))
      .join(delimiter),
  }
  try {
    await w.start()
    root = await w.everyPoint('conv', async (port) => (await port.convNew({ harness: 'none', project: 'sample' })).id)
    w.acks.push({ kind: 'conv', id: root })
    for (const [key, role] of LAUNCHES) {
      await w.everyPoint(`start-${key}`, async (port, j) => {
        cut = { key: `${key}-${j}`, role }
        const r = await port.laneStart({
          conversation: root!,
          run: 'crash',
          key: cut.key,
          role,
          prompt: 'x',
          noWait: true,
        })
        w.acks.push({ kind: 'lane', id: r.lane.id })
        cut = undefined
      })
    }
    // Past the last fault point: the whole part ran; check it once more.
    await verify(w.port, w.acks)
  } finally {
    await w.h.stop()
  }
  assert.ok(w.kills >= 20, `three launches have many kill points (${w.kills})`)
  recordFigure(
    'kernel killed at each step of three launches (builder, play, orchestrator)',
    `${w.kills} kill points, ${w.acks.length} acknowledged writes there after the last (each checked after every ` +
      `restart), 0 worktrees, branches or directories left unclaimed, ` +
      `every launch cut short succeeded when tried again`,
  )
})

test.run()
