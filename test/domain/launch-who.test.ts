import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ConversationRecord, LaneFacts } from '../../kernel/domain/conversation.js'
import { ROLES, type Role } from '../../kernel/domain/keys.js'
import { effectiveLauncher, mayLaunch } from '../../kernel/domain/launch.js'

// The launch section's who-may-launch rules (SPEC.md 5 and launch rules 1-2), apart from launch.test.ts for its
// length: the effective launcher and the table of who may launch each role, refusals word for word.

const refused = (code: string, message: string) => ({ ok: false, code, message })
// The effective launcher (SPEC.md glossary) and who may launch each role (SPEC.md 5, launch rules 1-2).
const laneAs = (role: Role, key = `k-${role}`): LaneFacts => ({
  run: 'r1',
  key,
  role,
  dir: `r1-${key}`,
  root: '/lanes',
  iteration: 1,
})

function conv(id: string, extra: Partial<ConversationRecord> = {}): ConversationRecord {
  return { id, name: `n${id}`, createdAt: Number(id), harness: 'none', cwd: '/w', ...extra }
}

/** A small world of conversations:
 *  1 root ── 2 orchestrator lane ── 3 handoff of 2 ── 4 fork of 3
 *  1 root ── 5 handoff of 1 ── 6 handoff of 5
 *  2 ── 7 builder lane ── 8 handoff of 7 ── 9 handoff of 8
 *  10 ⇄ 11 successors pointing at each other; 12 successor of itself
 *  13 successor of a missing row; 14 successor with no parent
 *  15 builder lane whose parent is successor 3 (a lane is its own launcher) */
const world = [
  conv('1'),
  conv('2', { parent: '1', lane: laneAs('orchestrator') }),
  conv('3', { parent: '2', successor: 'handoff' }),
  conv('4', { parent: '3', successor: 'fork' }),
  conv('5', { parent: '1', successor: 'handoff' }),
  conv('6', { parent: '5', successor: 'handoff' }),
  conv('7', { parent: '2', lane: laneAs('builder') }),
  conv('8', { parent: '7', successor: 'handoff' }),
  conv('9', { parent: '8', successor: 'fork' }),
  conv('10', { parent: '11', successor: 'handoff' }),
  conv('11', { parent: '10', successor: 'handoff' }),
  conv('12', { parent: '12', successor: 'fork' }),
  conv('13', { parent: '999', successor: 'handoff' }),
  conv('14', { successor: 'handoff' }),
  conv('15', { parent: '3', lane: laneAs('builder', 'b2') }),
]
const byId = new Map(world.map((r) => [r.id, r]))
const lookups: string[] = []
const lookup = (id: string) => {
  lookups.push(id)
  return byId.get(id)
}

test('effectiveLauncher: a root is its own launcher', () => {
  assert.is(effectiveLauncher('1', lookup), byId.get('1'))
})

test('effectiveLauncher: a lane is its own launcher', () => {
  assert.is(effectiveLauncher('2', lookup), byId.get('2'))
  assert.is(effectiveLauncher('7', lookup), byId.get('7'))
})

test('effectiveLauncher: a lane whose parent is a successor is still its own launcher', () => {
  assert.is(effectiveLauncher('15', lookup), byId.get('15'))
})

test('effectiveLauncher: successor of a lane resolves to the lane', () => {
  assert.is(effectiveLauncher('3', lookup)?.id, '2')
  assert.is(effectiveLauncher('8', lookup)?.id, '7')
})

test('effectiveLauncher: successor of a successor of a lane resolves to the lane', () => {
  assert.is(effectiveLauncher('4', lookup), byId.get('2'))
  assert.is(effectiveLauncher('9', lookup), byId.get('7'))
})

test('effectiveLauncher: successors of a root resolve to the root', () => {
  assert.is(effectiveLauncher('5', lookup), byId.get('1'))
  assert.is(effectiveLauncher('6', lookup), byId.get('1'))
})

test('effectiveLauncher: cycles give undefined (and terminate)', () => {
  lookups.length = 0
  assert.is(effectiveLauncher('10', lookup), undefined)
  assert.is(effectiveLauncher('11', lookup), undefined)
  assert.is(effectiveLauncher('12', lookup), undefined)
  assert.ok(lookups.length < 20, `bounded walk, ${lookups.length} lookups`)
})

test('effectiveLauncher: broken links give undefined', () => {
  assert.is(effectiveLauncher('13', lookup), undefined) // parent missing
  assert.is(effectiveLauncher('14', lookup), undefined) // successor without a parent
  assert.is(effectiveLauncher('nope', lookup), undefined) // unknown id
})

// SPEC.md section 5: who may launch each role.
const TABLE: Record<'root' | Role, Record<Role, boolean>> = {
  root: { builder: true, critic: true, verifier: true, play: true, orchestrator: true },
  orchestrator: { builder: true, critic: false, verifier: true, play: true, orchestrator: false },
  builder: { builder: false, critic: false, verifier: false, play: false, orchestrator: false },
  critic: { builder: false, critic: false, verifier: false, play: false, orchestrator: false },
  verifier: { builder: false, critic: false, verifier: false, play: false, orchestrator: false },
  play: { builder: false, critic: false, verifier: false, play: false, orchestrator: false },
}

test('mayLaunch: the full table of SPEC.md section 5', () => {
  for (const launcherKind of Object.keys(TABLE) as ('root' | Role)[]) {
    const launcher = launcherKind === 'root' ? conv('100') : conv('100', { parent: '1', lane: laneAs(launcherKind) })
    for (const role of ROLES) {
      const r = mayLaunch(launcher, role)
      assert.is(r.ok, TABLE[launcherKind][role], `${launcherKind} launching ${role}`)
      if (!r.ok) assert.is(r.code, 'forbidden', `${launcherKind} launching ${role}`)
    }
  }
})

test('mayLaunch: refusals from builder, critic, verifier and play lanes name the launcher role, word for word, whatever the role asked for', () => {
  for (const r of ['builder', 'critic', 'verifier', 'play'] as const)
    for (const role of ROLES)
      assert.equal(
        mayLaunch({ lane: laneAs(r) }, role),
        { ok: false, code: 'forbidden', message: `refused: a ${r} lane cannot launch lanes` },
        `${r} launching ${role}`,
      )
  assert.equal(mayLaunch({ lane: laneAs('orchestrator') }, 'critic'), {
    ok: false,
    code: 'forbidden',
    message: 'refused: an orchestrator lane cannot launch a critic lane; only a root conversation can',
  })
  assert.equal(mayLaunch({ lane: laneAs('orchestrator') }, 'orchestrator'), {
    ok: false,
    code: 'forbidden',
    message: 'refused: an orchestrator lane cannot launch an orchestrator lane; only a root conversation can',
  })
})

test('mayLaunch: a handed-off orchestrator keeps the standing of the original', () => {
  const eff = effectiveLauncher('4', lookup)
  assert.ok(eff)
  assert.is(mayLaunch(eff, 'builder').ok, true)
  assert.is(mayLaunch(eff, 'verifier').ok, true)
  assert.is(mayLaunch(eff, 'play').ok, true)
  assert.is(mayLaunch(eff, 'critic').ok, false)
  assert.is(mayLaunch(eff, 'orchestrator').ok, false)
})

test('mayLaunch: a successor of a builder lane may launch nothing', () => {
  const eff = effectiveLauncher('9', lookup)
  assert.ok(eff)
  for (const role of ROLES) assert.is(mayLaunch(eff, role).ok, false, role)
})

test('mayLaunch: a successor of a root has the standing of a root', () => {
  const eff = effectiveLauncher('6', lookup)
  assert.ok(eff)
  for (const role of ROLES) assert.is(mayLaunch(eff, role).ok, true, role)
})

test('mayLaunch: a worker launches no lanes', () => {
  assert.equal(
    mayLaunch({ worker: { issue: '7', iteration: 1 } } as Parameters<typeof mayLaunch>[0], 'builder'),
    refused('forbidden', 'refused: a worker cannot launch lanes'),
  )
})

test.run()
