import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import type { LaneNow } from '../../kernel/domain/lane.js'
import { isGitBacked, ROLES, type Role } from '../../kernel/domain/keys.js'
import {
  builderBranch,
  builderStartPoint,
  checkRequest,
  criticCheckout,
  fetchServes,
  judgedBuilder,
  laneConvName,
  laneDirName,
  laneKeyOf,
  launchModel,
  launchRun,
  nextIteration,
  oneLiveLane,
  optionLikeRef,
  optionsFitRole,
  planLaunch,
  reuseReachable,
  reuseTarget,
  type StartRequest,
} from '../../kernel/domain/launch.js'
import { buildContract } from '../../kernel/domain/contract.js'
import { report, row } from '../helpers/lane-now.js'

// SPEC.md 4.1 start: launch rules 1-8, the options, who may launch (SPEC.md 5) and the working directories by role
// (SPEC.md 2), one row per case, refusals with their code and exact message.

const BASE = 'origin/main'
const refused = (code: string, message: string) => ({ ok: false, code, message })

test('oneLiveLane (launch rule 3): one live lane per run, key and role; --replace stops it first', () => {
  const live = row('5', 'builder', 1, { live: true })
  const cases: [string, Partial<StartRequest>, LaneNow[], unknown][] = [
    ['none live', {}, [row('4', 'builder', 1)], { ok: true }],
    ['no lane yet', {}, [], { ok: true }],
    [
      'a live one, no --replace',
      {},
      [row('4', 'builder', 1), live],
      refused('conflict', 'lane r1/k builder i1 is live (conv 5); pass --replace to stop it and launch anew'),
    ],
    ['a live one, --replace', { replace: true }, [live], { ok: true, replace: live }],
  ]
  for (const [name, req, same, want] of cases)
    assert.equal(oneLiveLane({ role: 'builder', ...req }, 'r1', 'k', same), want, name)
})

test('reuseTarget (--reuse): the latest earlier lane, its directory as it is, never a frozen builder branch', () => {
  const done = row('3', 'builder', 2, { reports: [report(1, 10)], lane: { branch: 'lane/r1/k/i2' } })
  const cases: [string, Partial<StartRequest>, LaneNow[], unknown][] = [
    ['no --reuse', {}, [], { ok: true }],
    ['nothing to reuse', { reuse: true }, [], refused('conflict', 'refused: no earlier builder lane r1/k to reuse')],
    [
      '--at with --reuse',
      { reuse: true, at: 'x' },
      [row('2', 'builder', 1)],
      refused('usage', '--at does not go with --reuse: the lane continues in d2 as it is'),
    ],
    [
      '--from with --reuse',
      { reuse: true, from: 'x' },
      [row('2', 'builder', 1)],
      refused('usage', '--from does not go with --reuse: the lane continues in d2 as it is'),
    ],
    [
      '--branch with --reuse',
      { reuse: true, branch: 'x' },
      [row('2', 'builder', 1)],
      refused('usage', '--branch does not go with --reuse: the lane continues in d2 as it is'),
    ],
    [
      'a frozen builder branch',
      { reuse: true },
      [row('2', 'builder', 1), done],
      refused(
        'conflict',
        'refused: branch lane/r1/k/i2 of r1/k i2 is frozen (its builder reported done); start a new iteration',
      ),
    ],
    [
      'the latest one',
      { reuse: true },
      [row('1', 'builder', 1), row('2', 'builder', 2)],
      { ok: true, reuse: row('2', 'builder', 2) },
    ],
  ]
  for (const [name, req, same, want] of cases)
    assert.equal(reuseTarget({ role: 'builder', ...req }, 'r1', 'k', same), want, name)
})

test('reuseReachable (--reuse, issue 27): a latest earlier lane on a host that does not answer is refused first', () => {
  const lost = { source: 'host a', at: 1, detail: 'no answer for 40 s; ssh: Connection refused' }
  const onA = (id: string, o: { live?: boolean; lost?: boolean } = {}): LaneNow => ({
    ...row(id, 'builder', 1, { live: o.live, lane: { host: 'a' } }),
    ...(o.lost ? { hostLost: lost } : {}),
  })
  const cases: [string, Pick<StartRequest, 'reuse'>, LaneNow[], unknown][] = [
    ['no --reuse', {}, [onA('1', { lost: true })], { ok: true }],
    ['nothing to reuse', { reuse: true }, [], { ok: true }],
    ['its host answers', { reuse: true }, [onA('1')], { ok: true }],
    ['an older lane on a lost host', { reuse: true }, [onA('1', { lost: true }), onA('2')], { ok: true }],
    [
      'stopped, its host lost',
      { reuse: true },
      [onA('1', { lost: true })],
      {
        ...refused(
          'unavailable',
          'refused: the directory of conv 1 is on host a, which is not answering (no answer for 40 s; ssh: ' +
            'Connection refused); --reuse needs it',
        ),
        hint: 'wait until it answers (svc host show a), or start a new iteration',
      },
    ],
  ]
  for (const [name, req, same, want] of cases) assert.equal(reuseReachable(req, same), want, name)
  // Before rule 3: a lane whose host is lost counts as live, and --replace could not stop it.
  const d = planLaunch(
    { role: 'builder', key: 'k', reuse: true },
    'r1',
    'k',
    [onA('1', { live: true, lost: true })],
    { model: 'm' },
    BASE,
    0,
  )
  assert.equal(d.ok ? 'planned' : d.code, 'unavailable')
})

test('launchModel (--model): the request, else the role default; no built-in default', () => {
  assert.equal(launchModel({ role: 'critic', model: 'm1' }, { model: 'm2' }), { ok: true, model: 'm1' })
  assert.equal(launchModel({ role: 'critic' }, { model: 'm2' }), { ok: true, model: 'm2' })
  assert.equal(
    launchModel({ role: 'critic' }, {}),
    refused(
      'usage',
      'refused: no model for role critic: pass --model or set gauntlet.roles.critic.model in projects.yaml',
    ),
  )
})

test('judgedBuilder (launch rules 6 and 8): the newest iteration of the named builder, or the one a respawn judged', () => {
  const b1 = row('1', 'builder', 1, { reports: [report(1, 5, { head: 'aaa' })] })
  const b2 = row('2', 'builder', 2, { reports: [report(1, 6, { head: 'bbb' }), report(2, 7, { head: 'ccc' })] })
  const respawned = row('9', 'critic', 1, { lane: { for: { id: '1', key: 'k', iteration: 1, sha: 'aaa' } } })
  const orphan = row('9', 'critic', 1, { lane: { for: { id: '77', key: 'k', iteration: 1 } } })
  const cases: [string, string | undefined, LaneNow[], LaneNow | undefined, unknown][] = [
    ['no --for (a verifier of the run)', undefined, [b1], undefined, { ok: true }],
    ['absent builder', 'k', [], undefined, refused('not_found', 'refused: no builder k in run r1')],
    [
      'newest iteration, newest done head',
      'k',
      [b1, b2],
      undefined,
      { ok: true, judged: { row: b2, iteration: 2, sha: 'ccc' } },
    ],
    [
      'iteration without a done report',
      'k',
      [row('3', 'builder', 1)],
      undefined,
      { ok: true, judged: { row: row('3', 'builder', 1), iteration: 1, sha: undefined } },
    ],
    [
      'a respawn keeps its pairing',
      'k',
      [b1, b2],
      respawned,
      { ok: true, judged: { row: b1, iteration: 1, sha: 'aaa' } },
    ],
    [
      'a respawn whose builder is gone',
      'k',
      [b2],
      orphan,
      refused('not_found', 'refused: the builder conv 77 judged by conv 9 is gone'),
    ],
  ]
  for (const [name, forKey, builders, reuse, want] of cases)
    assert.equal(judgedBuilder({ for: forKey }, 'r1', builders, reuse), want, name)
})

test('criticCheckout (launch rule 7): the judged done head, --at, or refused with the SPEC message', () => {
  const judged = (sha?: string) => ({ row: row('1', 'builder', 3), iteration: 3, sha })
  const cases: [string, string | undefined, ReturnType<typeof judged> | undefined, boolean, unknown][] = [
    ['done head', undefined, judged('abc'), false, { ok: true, at: 'abc' }],
    ['--at wins', 'def', judged('abc'), false, { ok: true, at: 'def' }],
    ['no done report, --at', 'def', judged(), false, { ok: true, at: 'def' }],
    [
      'no done report, no --at',
      undefined,
      judged(),
      false,
      refused('conflict', 'builder k i3 has no done report; pass --at <sha>'),
    ],
    ['no done report, a respawn', undefined, judged(), true, { ok: true, at: undefined }],
    ['judges no builder: the base', undefined, undefined, false, { ok: true, at: BASE }],
    ['judges no builder: --at', 'def', undefined, false, { ok: true, at: 'def' }],
  ]
  for (const [name, at, j, reused, want] of cases)
    assert.equal(criticCheckout({ at }, 'k', j, reused, BASE), want, name)
})

test('builderStartPoint (launch rule 4): the newest report branch of the previous iteration unless --from', () => {
  const prev = [
    row('1', 'builder', 1, {
      lane: { branch: 'lane-b1' },
      reports: [report(1, 5, { branch: 'old' }), report(2, 9, { branch: 'new' })],
    }),
    row('2', 'builder', 1, { reports: [report(1, 7, { branch: 'mid' })] }),
  ]
  const cases: [string, string | undefined, LaneNow[], number, string][] = [
    ['first iteration: the base', undefined, [], 1, BASE],
    ['--from wins', 'feature', prev, 2, 'feature'],
    ['newest report of iteration n - 1', undefined, prev, 2, 'new'],
    ['no report: the lane branch', undefined, [row('1', 'builder', 1, { lane: { branch: 'lane-b1' } })], 2, 'lane-b1'],
    ['no previous lane: the base', undefined, [], 3, BASE],
  ]
  for (const [name, from, builders, iteration, want] of cases)
    assert.is(builderStartPoint({ from }, builders, iteration, BASE), want, name)
})

test('planLaunch: the rules composed; the verdict answered is dated by the now passed in, not the clock', () => {
  const lanes = [
    row('1', 'builder', 1, { lane: { branch: 'b1' }, reports: [report(1, 2, { branch: 'b1', head: 'h1' })] }),
    row('5', 'critic', 1, { lane: { for: { id: '1', key: 'k', iteration: 1 } } }),
  ]
  const plan = (now: number) => planLaunch({ role: 'builder', key: 'k' }, 'r1', 'k', lanes, { model: 'm' }, BASE, now)
  const early = plan(3)
  assert.ok(early.ok && early.plan.answers === undefined, 'before the critic was created')
  const late = plan(6)
  assert.ok(late.ok)
  if (late.ok) {
    assert.equal(late.plan.answers, { id: '5', verdict: undefined, verdictFile: undefined })
    assert.equal(
      [late.plan.iteration, late.plan.branch, late.plan.startPoint, late.plan.dirName],
      [2, 'r1/k-i2', 'b1', 'r1-k-i2'],
    )
  }
  assert.equal(
    planLaunch({ role: 'critic', for: 'k', key: 'k' }, 'r1', 'k', [row('1', 'builder', 1)], { model: 'm' }, BASE, 0),
    refused('conflict', 'builder k i1 has no done report; pass --at <sha>'),
  )
  assert.equal(
    planLaunch({ role: 'builder', key: 'k' }, 'r1', 'k', [row('1', 'builder', 1, { live: true })], {}, BASE, 0),
    refused('conflict', 'lane r1/k builder i1 is live (conv 1); pass --replace to stop it and launch anew'),
    'rule 3 before the model',
  )
  const critic = planLaunch({ role: 'critic', for: 'k' }, 'r1', 'k', lanes, { model: 'm' }, BASE, 0)
  assert.ok(
    critic.ok && critic.plan.at === 'h1' && critic.plan.judged?.row === lanes[0] && critic.plan.judged.sha === 'h1',
    'critic at the done head, the judged row recorded',
  )
  const play = planLaunch({ role: 'play', key: 'p' }, 'r1', 'p', [], { model: 'm' }, BASE, 0)
  assert.ok(play.ok && play.plan.at === undefined && play.plan.branch === undefined, 'a play lane has no git')
})

// Launch rule 5 (SPEC.md 4.1): the base is fetched before every git-backed launch; which fetch may serve an ask.
test('fetchServes: a fetch not begun yet, or begun after the ask; never one begun at or before it', () => {
  assert.is(fetchServes({}, 1000), true, 'waiting its turn: it begins after every ask made so far')
  assert.is(fetchServes({ startedAt: 1001 }, 1000), true, 'began after the ask')
  assert.is(
    fetchServes({ startedAt: 1000 }, 1000),
    false,
    'began in the same millisecond: the push may have come after it',
  )
  assert.is(fetchServes({ startedAt: 999 }, 1000), false, 'under way before the ask')
})

// Launch rules 1, 2 and 6 (the request's part) and the options.
const root: ConversationRecord = { id: '1', name: 'c1', createdAt: 1, harness: 'claude', cwd: '/w' }
const orch: ConversationRecord = {
  ...root,
  id: '2',
  name: 'c2',
  lane: { run: 'r1', key: 'o', role: 'orchestrator', dir: 'd', root: '/l', iteration: 1 },
}
const builder: ConversationRecord = {
  ...root,
  id: '3',
  name: 'c3',
  lane: { run: 'r1', key: 'b', role: 'builder', dir: 'd', root: '/l', iteration: 1 },
}

test('launchRun (launch rules 1-2): who may launch, into which run', () => {
  const rows: [string, Partial<StartRequest> & { role: Role }, ConversationRecord | undefined, unknown][] = [
    ['root with --run', { role: 'builder', run: 'r9' }, root, { ok: true, run: 'r9' }],
    [
      'root without --run',
      { role: 'builder' },
      root,
      refused('usage', '--run is required when the launcher is a root conversation'),
    ],
    [
      'bad run key',
      { role: 'builder', run: 'R!' },
      root,
      refused('usage', "invalid run key 'R!': it must match ^[a-z0-9][a-z0-9-]{0,31}$"),
    ],
    ['orchestrator inherits its run', { role: 'builder' }, orch, { ok: true, run: 'r1' }],
    ['orchestrator into its own run', { role: 'builder', run: 'r1' }, orch, { ok: true, run: 'r1' }],
    [
      'orchestrator into another run',
      { role: 'builder', run: 'r2' },
      orch,
      refused('forbidden', 'refused: an orchestrator lane of run r1 launches only into its own run, not r2'),
    ],
    [
      'orchestrator launching a critic',
      { role: 'critic', run: 'r1' },
      orch,
      refused('forbidden', 'refused: an orchestrator lane cannot launch a critic lane; only a root conversation can'),
    ],
    [
      'a builder launches nothing',
      { role: 'play', run: 'r1' },
      builder,
      refused('forbidden', 'refused: a builder lane cannot launch lanes'),
    ],
    [
      'broken chain',
      { role: 'builder', run: 'r1' },
      undefined,
      refused('forbidden', 'conv 9 has a broken chain of parent links; it cannot launch lanes'),
    ],
  ]
  for (const [name, req, effective, want] of rows)
    assert.equal(launchRun(req, { ...root, id: '9' }, effective), want, name)
})

test('laneKeyOf (launch rule 6): --for for a critic, optional for a verifier, --key defaults to --for', () => {
  const rows: [string, Partial<StartRequest> & { role: Role }, unknown][] = [
    ['critic without --for', { role: 'critic', key: 'k' }, refused('usage', 'a critic needs --for <builder key>')],
    ['critic --for', { role: 'critic', for: 'k' }, { ok: true, key: 'k' }],
    ['critic --for and the same --key', { role: 'critic', for: 'k', key: 'k' }, { ok: true, key: 'k' }],
    [
      'critic --key differing from --for',
      { role: 'critic', for: 'k', key: 'j' },
      refused('usage', '--key j differs from --for k; a critic takes the key of the builder it judges'),
    ],
    ['verifier without --for', { role: 'verifier', key: 'run-check' }, { ok: true, key: 'run-check' }],
    ['verifier --for', { role: 'verifier', for: 'k' }, { ok: true, key: 'k' }],
    [
      '--for on a builder',
      { role: 'builder', for: 'k' },
      refused('usage', '--for is for critic and verifier lanes, not builder'),
    ],
    [
      'bad --for',
      { role: 'critic', for: 'K K' },
      refused('usage', "invalid lane key 'K K': it must match ^[a-z0-9][a-z0-9._-]{0,39}$"),
    ],
    ['neither', { role: 'builder' }, refused('usage', 'one of --key or --for is required')],
    [
      'bad --key',
      { role: 'builder', key: '-x' },
      refused('usage', "invalid lane key '-x': it must match ^[a-z0-9][a-z0-9._-]{0,39}$"),
    ],
  ]
  for (const [name, req, want] of rows) assert.equal(laneKeyOf(req), want, name)
})

test('optionsFitRole: --branch and --from for builders, --at for detached worktrees', () => {
  const rows: [string, Partial<StartRequest> & { role: Role }, unknown][] = [
    ['builder --branch --from', { role: 'builder', branch: 'b', from: 'main' }, { ok: true }],
    ['critic --branch', { role: 'critic', branch: 'b' }, refused('usage', '--branch is for builder lanes, not critic')],
    ['play --from', { role: 'play', from: 'main' }, refused('usage', '--from is for builder lanes, not play')],
    [
      'builder --at',
      { role: 'builder', at: 'abc' },
      refused('usage', '--at is for detached worktrees (orchestrator, critic, verifier), not builder'),
    ],
    ['critic --at', { role: 'critic', at: 'abc' }, { ok: true }],
    [
      'option-like --at',
      { role: 'critic', at: '-rf' },
      refused('usage', "--at -rf: a ref never starts with '-'; give a branch, tag or commit"),
    ],
  ]
  for (const [name, req, want] of rows) assert.equal(optionsFitRole(req), want, name)
})

test('checkRequest: the run first, then the key, then the options', () => {
  assert.equal(
    checkRequest({ role: 'critic', at: 'x' }, root, root),
    refused('usage', '--run is required when the launcher is a root conversation'),
  )
  assert.equal(
    checkRequest({ role: 'builder', run: 'r1', at: 'x' }, root, root),
    refused('usage', 'one of --key or --for is required'),
  )
  assert.equal(
    checkRequest({ role: 'builder', run: 'r1', key: 'k', at: 'x' }, root, root),
    refused('usage', '--at is for detached worktrees (orchestrator, critic, verifier), not builder'),
  )
  assert.equal(checkRequest({ role: 'critic', for: 'k' }, orch, root), {
    ok: false,
    code: 'usage',
    message: '--run is required when the launcher is a root conversation',
  })
  assert.equal(checkRequest({ role: 'builder', key: 'k' }, orch, orch), { ok: true, run: 'r1', key: 'k' })
})

test('planLaunch: one row per start case of SPEC.md 4.1 and 7 (refusals in rule order, defaults, reuse, replace, checkouts)', () => {
  const builder1 = row('1', 'builder', 1, {
    lane: { branch: 'r1/k' },
    reports: [report(1, 2, { branch: 'r1/k', head: 'h1' })],
  })
  const plan = (req: StartRequest, lanes: LaneNow[], defaults = { model: 'm' }) =>
    planLaunch(req, 'r1', req.key ?? req.for ?? 'k', lanes, defaults, BASE, 100)
  const picked = <K extends string>(d: ReturnType<typeof plan>, ...keys: K[]) =>
    d.ok ? Object.fromEntries(keys.map((k) => [k, (d.plan as unknown as Record<string, unknown>)[k]])) : d
  const cases: [string, ReturnType<typeof plan>, string[], unknown][] = [
    [
      '7: --reuse while the earlier lane is live is refused',
      plan({ role: 'builder', key: 'k', reuse: true }, [row('1', 'builder', 1, { live: true })]),
      [],
      refused('conflict', 'lane r1/k builder i1 is live (conv 1); pass --replace to stop it and launch anew'),
    ],
    [
      '7: no --model and no role model is refused',
      plan({ role: 'builder', key: 'k' }, [], {} as { model: string }),
      [],
      refused(
        'usage',
        'refused: no model for role builder: pass --model or set gauntlet.roles.builder.model in projects.yaml',
      ),
    ],
    [
      '7: --for naming a builder absent from the run',
      plan({ role: 'critic', for: 'k' }, []),
      [],
      refused('not_found', 'refused: no builder k in run r1'),
    ],
    [
      'rule 3 --replace: the live lane is stopped first',
      plan({ role: 'builder', key: 'k', replace: true }, [row('1', 'builder', 1, { live: true })]),
      ['replace', 'iteration'],
      { replace: row('1', 'builder', 1, { live: true }), iteration: 2 },
    ],
    [
      '--reuse keeps the iteration and the directory, cuts no branch',
      plan({ role: 'builder', key: 'k', reuse: true }, [row('1', 'builder', 1)]),
      ['iteration', 'dirName', 'branch'],
      { iteration: 1, dirName: 'd1', branch: undefined },
    ],
    [
      'first builder: branch <run>/<key> cut from the base',
      plan({ role: 'builder', key: 'k' }, []),
      ['iteration', 'branch', 'startPoint', 'dirName'],
      { iteration: 1, branch: 'r1/k', startPoint: BASE, dirName: 'r1-k' },
    ],
    [
      "--branch and --from are the builder's own",
      plan({ role: 'builder', key: 'k', branch: 'mine', from: 'v1' }, [builder1]),
      ['branch', 'startPoint', 'answers'],
      { branch: 'mine', startPoint: 'v1', answers: undefined },
    ],
    [
      'an orchestrator at the base, or at --at',
      plan({ role: 'orchestrator', key: 'o' }, []),
      ['at', 'dirName'],
      { at: BASE, dirName: 'r1-o-orch' },
    ],
    ['an orchestrator at --at', plan({ role: 'orchestrator', key: 'o', at: 'v2' }, []), ['at'], { at: 'v2' }],
    [
      'a verifier of the whole run: at the base, judging nothing',
      plan({ role: 'verifier', key: 'all' }, [builder1]),
      ['at', 'judged', 'dirName'],
      { at: BASE, judged: undefined, dirName: 'r1-all-verify-i1' },
    ],
    ['a verifier --for: at the done head', plan({ role: 'verifier', for: 'k' }, [builder1]), ['at'], { at: 'h1' }],
    [
      'a critic --at: at --at, without a done report',
      plan({ role: 'critic', for: 'k', at: 'abc' }, [row('1', 'builder', 1)]),
      ['at', 'dirName'],
      { at: 'abc', dirName: 'r1-k-critic-i1' },
    ],
    [
      'the model, harness and effort of the role by default',
      plan({ role: 'play', key: 'p' }, [], { model: 'm', effort: 'high', harness: 'codex' } as { model: string }),
      ['model', 'harness', 'effort'],
      { model: 'm', harness: 'codex', effort: 'high' },
    ],
    [
      'the request wins over the defaults; the harness defaults to claude',
      plan({ role: 'play', key: 'p', model: 'x', effort: 'low' }, [], { model: 'm', effort: 'high' } as {
        model: string
      }),
      ['model', 'harness', 'effort'],
      { model: 'x', harness: 'claude', effort: 'low' },
    ],
  ]
  for (const [name, d, keys, want] of cases) assert.equal(keys.length ? picked(d, ...keys) : d, want, name)
})

test('laneDirName and builderBranch (SPEC.md 2, working directories by role): one row per role and iteration', () => {
  const rows: [Role, number, string][] = [
    ['orchestrator', 1, 'r1-k-orch'],
    ['builder', 1, 'r1-k'],
    ['builder', 3, 'r1-k-i3'],
    ['critic', 2, 'r1-k-critic-i2'],
    ['verifier', 2, 'r1-k-verify-i2'],
    ['play', 1, 'r1-k-play-i1'],
  ]
  for (const [role, n, want] of rows) assert.is(laneDirName('r1', 'k', role, n), want, `${role} i${n}`)
  assert.is(builderBranch('r1', 'k', 1), 'r1/k', 'iteration 1: <run>/<key>')
  assert.is(builderBranch('r1', 'k', 4), 'r1/k-i4', 'later: <run>/<key>-i<n>')
  assert.is(laneConvName('r1', 'k', 'critic', 2, 0), 'r1-k-critic-i2', 'first attempt')
  assert.is(laneConvName('r1', 'k', 'critic', 2, 1), 'r1-k-critic-i2-2', 'a respawn in the same iteration')
  for (const role of ROLES) assert.is(isGitBacked(role), role !== 'play', `${role}: a play directory is no worktree`)
})

test('nextIteration (SPEC.md glossary): distinct directories of the same run, key and role, plus one', () => {
  const rows: [string, { dir: string; iteration: number }[], number][] = [
    ['none yet', [], 1],
    ['one', [{ dir: 'a', iteration: 1 }], 2],
    [
      'a --reuse respawn shares its directory',
      [
        { dir: 'a', iteration: 1 },
        { dir: 'a', iteration: 1 },
        { dir: 'b', iteration: 2 },
      ],
      3,
    ],
  ]
  for (const [name, earlier, want] of rows) assert.is(nextIteration(earlier), want, name)
})

test('optionLikeRef: no ref or branch name starting with - reaches git', () => {
  const rows: [string, { from?: string; at?: string; branch?: string }, string | undefined][] = [
    ['plain refs', { from: 'main', at: 'v1', branch: 'b' }, undefined],
    [
      '--from',
      { from: '--upload-pack=x' },
      "--from --upload-pack=x: a ref never starts with '-'; give a branch, tag or commit",
    ],
    ['--branch', { branch: '-D' }, "--branch -D: a branch name never starts with '-'"],
  ]
  for (const [name, req, want] of rows) assert.is(optionLikeRef(req), want, name)
  assert.equal(
    optionsFitRole({ role: 'play', at: 'x' }),
    refused('usage', '--at is for detached worktrees (orchestrator, critic, verifier), not play'),
    'play --at',
  )
  for (const role of ['orchestrator', 'verifier'] as const)
    assert.equal(optionsFitRole({ role, at: 'x' }), { ok: true }, `${role} --at`)
})

test("launch rule 8 and pairing rule 2: the contract names the judged commit, never the builder's name or report; a builder is told the verdict it answers", () => {
  const builder = row('1', 'builder', 1, { reports: [report(1, 2, { head: 'h1', body: 'THE BUILDER REPORT' })] })
  const critic = planLaunch({ role: 'critic', for: 'k' }, 'r1', 'k', [builder], { model: 'm' }, BASE, 0)
  assert.ok(critic.ok)
  if (!critic.ok) return
  const j = critic.plan.judged!
  const text = buildContract({
    role: 'critic',
    run: 'r1',
    key: 'k',
    iteration: 1,
    cwd: '/lanes/c',
    at: critic.plan.at,
    brief: 'judge it',
    judged: { key: 'k', iteration: j.iteration, sha: j.sha },
  })
  assert.ok(text.includes('- You judge builder k i1 at commit h1.'), 'the judged row and its commit')
  // That a critic's contract carries no builder name or report text is proven end to end (e2e/lane-start): the facts
  // given to buildContract here have no field that could carry them.
  const rows: [string, { id: string; verdict?: string; verdictFile?: string }, string][] = [
    [
      'with verdict and file',
      { id: '5', verdict: 'NOT_YET', verdictFile: '/v.json' },
      '- This iteration answers the verdict of critic conv 5: NOT_YET, verdict file /v.json.',
    ],
    ['no verdict filed', { id: '5' }, '- This iteration answers the verdict of critic conv 5: (no verdict filed).'],
  ]
  for (const [name, answers, line] of rows)
    assert.ok(
      buildContract({
        role: 'builder',
        run: 'r1',
        key: 'k',
        iteration: 2,
        cwd: '/lanes/b',
        branch: 'r1/k-i2',
        brief: 'b',
        answers,
      })
        .split('\n')
        .includes(line),
      name,
    )
})

test.run()
