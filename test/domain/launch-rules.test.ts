import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { LaneFacts } from '../../kernel/domain/conversation.js'
import type { LaneNow } from '../../kernel/domain/lane.js'
import type { Role } from '../../kernel/domain/keys.js'
import { answeredVerdict } from '../../kernel/domain/chains.js'
import { builderStartPoint, criticCheckout, fetchServes, judgedBuilder, launchModel, oneLiveLane, planLaunch, reuseTarget, type StartRequest } from '../../kernel/domain/launch.js'
import type { Report } from '../../kernel/domain/report.js'

// SPEC.md 4.1 start, launch rules 3-8, one row per case, refusals with their code and exact message.

const BASE = 'origin/main'
const report = (seq: number, at: number, extra: Partial<Report> = {}): Report => ({ seq, at, status: 'done', body: 'b', ...extra })
const row = (id: string, role: Role, iteration: number, o: { live?: boolean; reports?: Report[]; lane?: Partial<LaneFacts>; key?: string } = {}): LaneNow => ({
  rec: {
    id,
    name: `n${id}`,
    createdAt: Number(id),
    harness: 'claude',
    cwd: `/lanes/d${id}`,
    lane: { run: 'r1', key: o.key ?? 'k', role, dir: `d${id}`, root: '/lanes', iteration, ...o.lane },
  },
  live: o.live ?? false,
  reports: o.reports ?? [],
})
const refused = (code: string, message: string) => ({ ok: false, code, message })

test('oneLiveLane (launch rule 3): one live lane per run, key and role; --replace stops it first', () => {
  const live = row('5', 'builder', 1, { live: true })
  const cases: [string, Partial<StartRequest>, LaneNow[], unknown][] = [
    ['none live', {}, [row('4', 'builder', 1)], { ok: true }],
    ['no lane yet', {}, [], { ok: true }],
    ['a live one, no --replace', {}, [row('4', 'builder', 1), live], refused('conflict', 'lane r1/k builder i1 is live (conv 5); pass --replace to stop it and launch anew')],
    ['a live one, --replace', { replace: true }, [live], { ok: true, replace: live }],
  ]
  for (const [name, req, same, want] of cases) assert.equal(oneLiveLane({ role: 'builder', ...req }, 'r1', 'k', same), want, name)
})

test('reuseTarget (--reuse): the latest earlier lane, its directory as it is, never a frozen builder branch', () => {
  const done = row('3', 'builder', 2, { reports: [report(1, 10)], lane: { branch: 'lane/r1/k/i2' } })
  const cases: [string, Partial<StartRequest>, LaneNow[], unknown][] = [
    ['no --reuse', {}, [], { ok: true }],
    ['nothing to reuse', { reuse: true }, [], refused('conflict', 'refused: no earlier builder lane r1/k to reuse')],
    ['--at with --reuse', { reuse: true, at: 'x' }, [row('2', 'builder', 1)], refused('usage', '--at does not go with --reuse: the lane continues in d2 as it is')],
    ['--from with --reuse', { reuse: true, from: 'x' }, [row('2', 'builder', 1)], refused('usage', '--from does not go with --reuse: the lane continues in d2 as it is')],
    ['--branch with --reuse', { reuse: true, branch: 'x' }, [row('2', 'builder', 1)], refused('usage', '--branch does not go with --reuse: the lane continues in d2 as it is')],
    ['a frozen builder branch', { reuse: true }, [row('2', 'builder', 1), done], refused('conflict', 'refused: branch lane/r1/k/i2 of r1/k i2 is frozen (its builder reported done); start a new iteration')],
    ['the latest one', { reuse: true }, [row('1', 'builder', 1), row('2', 'builder', 2)], { ok: true, reuse: row('2', 'builder', 2) }],
  ]
  for (const [name, req, same, want] of cases) assert.equal(reuseTarget({ role: 'builder', ...req }, 'r1', 'k', same), want, name)
})

test('launchModel (--model): the request, else the role default; no built-in default', () => {
  assert.equal(launchModel({ role: 'critic', model: 'm1' }, { model: 'm2' }), { ok: true, model: 'm1' })
  assert.equal(launchModel({ role: 'critic' }, { model: 'm2' }), { ok: true, model: 'm2' })
  assert.equal(launchModel({ role: 'critic' }, {}), refused('usage', 'refused: no model for role critic: pass --model or set gauntlet.roles.critic.model in projects.yaml'))
})

test('judgedBuilder (launch rules 6 and 8): the newest iteration of the named builder, or the one a respawn judged', () => {
  const b1 = row('1', 'builder', 1, { reports: [report(1, 5, { head: 'aaa' })] })
  const b2 = row('2', 'builder', 2, { reports: [report(1, 6, { head: 'bbb' }), report(2, 7, { head: 'ccc' })] })
  const respawned = row('9', 'critic', 1, { lane: { for: { id: '1', key: 'k', iteration: 1, sha: 'aaa' } } })
  const orphan = row('9', 'critic', 1, { lane: { for: { id: '77', key: 'k', iteration: 1 } } })
  const cases: [string, string | undefined, LaneNow[], LaneNow | undefined, unknown][] = [
    ['no --for (a verifier of the run)', undefined, [b1], undefined, { ok: true }],
    ['absent builder', 'k', [], undefined, refused('not_found', 'refused: no builder k in run r1')],
    ['newest iteration, newest done head', 'k', [b1, b2], undefined, { ok: true, judged: { row: b2, iteration: 2, sha: 'ccc' } }],
    ['iteration without a done report', 'k', [row('3', 'builder', 1)], undefined, { ok: true, judged: { row: row('3', 'builder', 1), iteration: 1, sha: undefined } }],
    ['a respawn keeps its pairing', 'k', [b1, b2], respawned, { ok: true, judged: { row: b1, iteration: 1, sha: 'aaa' } }],
    ['a respawn whose builder is gone', 'k', [b2], orphan, refused('not_found', 'refused: the builder conv 77 judged by conv 9 is gone')],
  ]
  for (const [name, forKey, builders, reuse, want] of cases) assert.equal(judgedBuilder({ for: forKey }, 'r1', builders, reuse), want, name)
})

test('criticCheckout (launch rule 7): the judged done head, --at, or refused with the SPEC message', () => {
  const judged = (sha?: string) => ({ row: row('1', 'builder', 3), iteration: 3, sha })
  const cases: [string, string | undefined, ReturnType<typeof judged> | undefined, boolean, unknown][] = [
    ['done head', undefined, judged('abc'), false, { ok: true, at: 'abc' }],
    ['--at wins', 'def', judged('abc'), false, { ok: true, at: 'def' }],
    ['no done report, --at', 'def', judged(), false, { ok: true, at: 'def' }],
    ['no done report, no --at', undefined, judged(), false, refused('conflict', 'builder k i3 has no done report; pass --at <sha>')],
    ['no done report, a respawn', undefined, judged(), true, { ok: true, at: undefined }],
    ['judges no builder: the base', undefined, undefined, false, { ok: true, at: BASE }],
    ['judges no builder: --at', 'def', undefined, false, { ok: true, at: 'def' }],
  ]
  for (const [name, at, j, reused, want] of cases) assert.equal(criticCheckout({ at }, 'k', j, reused, BASE), want, name)
})

test('builderStartPoint (launch rule 4): the newest report branch of the previous iteration unless --from', () => {
  const prev = [row('1', 'builder', 1, { lane: { branch: 'lane-b1' }, reports: [report(1, 5, { branch: 'old' }), report(2, 9, { branch: 'new' })] }), row('2', 'builder', 1, { reports: [report(1, 7, { branch: 'mid' })] })]
  const cases: [string, string | undefined, LaneNow[], number, string][] = [
    ['first iteration: the base', undefined, [], 1, BASE],
    ['--from wins', 'feature', prev, 2, 'feature'],
    ['newest report of iteration n - 1', undefined, prev, 2, 'new'],
    ['no report: the lane branch', undefined, [row('1', 'builder', 1, { lane: { branch: 'lane-b1' } })], 2, 'lane-b1'],
    ['no previous lane: the base', undefined, [], 3, BASE],
  ]
  for (const [name, from, builders, iteration, want] of cases) assert.is(builderStartPoint({ from }, builders, iteration, BASE), want, name)
})

test('answeredVerdict (Pairing and chains): the newest critic of iteration n - 1 created before the builder', () => {
  const critic = (id: string, iteration: number, reports: Report[] = []) => row(id, 'critic', 1, { reports, lane: { for: { id: '1', key: 'k', iteration } } })
  const lanes = [critic('10', 1, [report(1, 11, { verdict: 'NOT_YET', verdictFile: '/v.json' })]), critic('20', 1), critic('30', 2), critic('40', 1)]
  assert.equal(answeredVerdict(lanes, 'k', 1, 25), { id: '20', verdict: undefined, verdictFile: undefined }, 'newest created before')
  assert.equal(answeredVerdict(lanes, 'k', 1, 15), { id: '10', verdict: 'NOT_YET', verdictFile: '/v.json' }, 'with its verdict')
  assert.is(answeredVerdict(lanes, 'k', 1, 5), undefined, 'none created before')
  assert.is(answeredVerdict(lanes, 'other', 1, 50), undefined, 'another key')
})

test('planLaunch: the rules composed; the verdict answered is dated by the now passed in, not the clock', () => {
  const lanes = [row('1', 'builder', 1, { lane: { branch: 'b1' }, reports: [report(1, 2, { branch: 'b1', head: 'h1' })] }), row('5', 'critic', 1, { lane: { for: { id: '1', key: 'k', iteration: 1 } } })]
  const plan = (now: number) => planLaunch({ role: 'builder', key: 'k' }, 'r1', 'k', lanes, { model: 'm' }, BASE, now)
  const early = plan(3)
  assert.ok(early.ok && early.plan.answers === undefined, 'before the critic was created')
  const late = plan(6)
  assert.ok(late.ok)
  if (late.ok) {
    assert.equal(late.plan.answers, { id: '5', verdict: undefined, verdictFile: undefined })
    assert.equal([late.plan.iteration, late.plan.branch, late.plan.startPoint, late.plan.dirName], [2, 'r1/k-i2', 'b1', 'r1-k-i2'])
  }
  assert.equal(planLaunch({ role: 'critic', for: 'k', key: 'k' }, 'r1', 'k', [row('1', 'builder', 1)], { model: 'm' }, BASE, 0), refused('conflict', 'builder k i1 has no done report; pass --at <sha>'))
  assert.equal(planLaunch({ role: 'builder', key: 'k' }, 'r1', 'k', [row('1', 'builder', 1, { live: true })], {}, BASE, 0), refused('conflict', 'lane r1/k builder i1 is live (conv 1); pass --replace to stop it and launch anew'), 'rule 3 before the model')
  const critic = planLaunch({ role: 'critic', for: 'k' }, 'r1', 'k', lanes, { model: 'm' }, BASE, 0)
  assert.ok(critic.ok && critic.plan.at === 'h1' && critic.plan.judged?.row === lanes[0] && critic.plan.judged.sha === 'h1', 'critic at the done head, the judged row recorded')
  const play = planLaunch({ role: 'play', key: 'p' }, 'r1', 'p', [], { model: 'm' }, BASE, 0)
  assert.ok(play.ok && play.plan.at === undefined && play.plan.branch === undefined, 'a play lane has no git')
})

// Launch rule 5 (SPEC.md 4.1): the base is fetched before every git-backed launch; which fetch may serve an ask.
test('fetchServes: a fetch not begun yet, or begun after the ask; never one begun at or before it', () => {
  assert.is(fetchServes({}, 1000), true, 'waiting its turn: it begins after every ask made so far')
  assert.is(fetchServes({ startedAt: 1001 }, 1000), true, 'began after the ask')
  assert.is(fetchServes({ startedAt: 1000 }, 1000), false, 'began in the same millisecond: the push may have come after it')
  assert.is(fetchServes({ startedAt: 999 }, 1000), false, 'under way before the ask')
})

test.run()
