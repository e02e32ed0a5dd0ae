import { conversationKind, type ConversationRecord } from './conversation.js'
import { answeredVerdict, type AnsweredVerdict } from './chains.js'
import type { RoleDefaults } from './configuration.js'
import { oneLine } from './errors.js'
import {
  invalidLaneKey,
  invalidRunKey,
  isGitBacked,
  isJudgeRole,
  isLaneKey,
  isRunKey,
  type Effort,
  type Harness,
  type Role,
} from './keys.js'
import { newest } from './newest.js'
import { byCreation, newestLane, type LaneNow } from './lane.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'
import type { Report } from './report.js'

export interface StartRequest {
  key?: string
  for?: string
  role: Role
  run?: string
  model?: string
  harness?: Harness
  effort?: Effort
  branch?: string
  from?: string
  at?: string
  reuse?: boolean
  replace?: boolean
}

/** SPEC.md 4.1 start, launch rules 1-2: the effective launcher may start the role, and an orchestrator lane launches
 * only into its own run (SPEC.md section 5). Returns the run the lane goes into. */
export function launchRun(
  req: Pick<StartRequest, 'role' | 'run'>,
  launcher: ConversationRecord,
  effective: ConversationRecord | undefined,
): Decision<{ run: string }> {
  if (!effective)
    return refuse('forbidden', `conv ${launcher.id} has a broken chain of parent links; it cannot launch lanes`)
  const allowed = mayLaunch(effective, req.role)
  if (!allowed.ok) return allowed
  const launcherRun = effective.lane?.role === 'orchestrator' ? effective.lane.run : undefined
  if (launcherRun && req.run && req.run !== launcherRun)
    return refuse(
      'forbidden',
      `refused: an orchestrator lane of run ${launcherRun} launches only into its own run, not ${req.run}`,
    )
  const run = launcherRun ?? req.run
  if (!run) return refuse('usage', '--run is required when the launcher is a root conversation')
  if (!isRunKey(run)) return refuse('usage', invalidRunKey(run))
  return allow({ run })
}

/** SPEC.md 4.1 start, launch rule 6 (the request's part): a critic needs `--for`, `--key` defaults to `--for`, and a
 * different `--key` is refused. Returns the lane key. */
export function laneKeyOf(req: Pick<StartRequest, 'role' | 'key' | 'for'>): Decision<{ key: string }> {
  if (req.role === 'critic' && !req.for) return refuse('usage', 'a critic needs --for <builder key>')
  if (req.for !== undefined && !isJudgeRole(req.role))
    return refuse('usage', `--for is for critic and verifier lanes, not ${req.role}`)
  if (req.for !== undefined && !isLaneKey(req.for)) return refuse('usage', invalidLaneKey(req.for))
  if (req.for !== undefined && req.key !== undefined && req.key !== req.for)
    return refuse(
      'usage',
      `--key ${req.key} differs from --for ${req.for}; a ${req.role} takes the key of the builder it judges`,
    )
  const key = req.key ?? req.for
  if (key === undefined) return refuse('usage', 'one of --key or --for is required')
  if (!isLaneKey(key)) return refuse('usage', invalidLaneKey(key))
  return allow({ key })
}

/** SPEC.md 4.1 start options: `--branch` and `--from` are for builders, `--at` for detached worktrees, and no ref
 * starts with `-`. */
export function optionsFitRole(req: Pick<StartRequest, 'role' | 'branch' | 'from' | 'at'>): Decision {
  if (req.branch !== undefined && req.role !== 'builder')
    return refuse('usage', `--branch is for builder lanes, not ${req.role}`)
  if (req.from !== undefined && req.role !== 'builder')
    return refuse('usage', `--from is for builder lanes, not ${req.role}`)
  if (req.at !== undefined && (req.role === 'builder' || req.role === 'play'))
    return refuse('usage', `--at is for detached worktrees (orchestrator, critic, verifier), not ${req.role}`)
  const optionLike = optionLikeRef(req)
  return optionLike ? refuse('usage', optionLike) : allow({})
}

/** SPEC.md 4.1 start: launch rules 1, 2 and 6 and the options, which need nothing but the request and the
 * launcher; checked before anything is read or created. Returns the run and key. */
export function checkRequest(
  req: StartRequest,
  launcher: ConversationRecord,
  effective: ConversationRecord | undefined,
): Decision<{ run: string; key: string }> {
  const run = launchRun(req, launcher, effective)
  if (!run.ok) return run
  const key = laneKeyOf(req)
  if (!key.ok) return key
  const options = optionsFitRole(req)
  return options.ok ? allow({ run: run.run, key: key.key }) : options
}

/** SPEC.md 4.1 start options `--from`, `--at`, `--branch`: a ref or branch name the user gives reaches git only as a
 * name, never as one of its options: one that starts with `-` is refused before git sees it. */
export function optionLikeRef(req: { from?: string; at?: string; branch?: string }): string | undefined {
  const o = (['from', 'at', 'branch'] as const).find((k) => req[k]?.startsWith('-'))
  if (!o) return undefined
  const what =
    o === 'branch' ? "a branch name never starts with '-'" : "a ref never starts with '-'; give a branch, tag or commit"
  return `--${o} ${oneLine(req[o]!, 80)}: ${what}`
}

/** What following parent links reads of a conversation. */
type LinkRow = Pick<ConversationRecord, 'id' | 'parent' | 'lane' | 'successor'> & { worker?: unknown }

/** SPEC.md 5 and the glossary, effective launcher: the launching conversation, or, if that is a successor, the row
 * reached by following parent links until a lane or a root is met. A broken or cyclic chain yields undefined. */
export function effectiveLauncher<R extends LinkRow = ConversationRecord>(
  id: string,
  lookup: (id: string) => R | undefined,
): R | undefined {
  const seen = new Set<string>()
  let row = lookup(id)
  while (row && conversationKind(row) === 'successor') {
    if (seen.has(row.id) || !row.parent) return undefined
    seen.add(row.id)
    row = lookup(row.parent)
  }
  return row
}

/** SPEC.md section 5 and 4.1 launch rules 1-2: who may launch each role. `launcher` is the effective launcher. A
 * worker launches no lanes. */
export function mayLaunch(launcher: Pick<ConversationRecord, 'lane' | 'successor' | 'worker'>, role: Role): Decision {
  if (launcher.worker) return refuse('forbidden', 'refused: a worker cannot launch lanes')
  const launcherRole = launcher.lane?.role
  if (!launcherRole) return ALLOWED
  if (launcherRole !== 'orchestrator') return refuse('forbidden', `refused: a ${launcherRole} lane cannot launch lanes`)
  const allowed: readonly Role[] = ['builder', 'verifier', 'play']
  return allowed.includes(role)
    ? ALLOWED
    : refuse(
        'forbidden',
        `refused: an orchestrator lane cannot launch ${role === 'orchestrator' ? 'an' : 'a'} ${role} lane; only a ` +
          `root conversation can`,
      )
}

/** SPEC.md 4.1 start `--reuse` and the glossary: the iteration of a lane is the count of distinct working directories
 * among lanes with the same run, key and role, in launch order; a `--reuse` respawn keeps the iteration of the lane it
 * continues. */
export function nextIteration(earlier: readonly { dir: string; iteration: number }[]): number {
  return new Set(earlier.map((l) => l.dir)).size + 1
}

/** SPEC.md section 2, working directories by role: the directory name of a lane under the lanes root. */
export function laneDirName(run: string, key: string, role: Role, iteration: number): string {
  switch (role) {
    case 'orchestrator':
      return `${run}-${key}-orch`
    case 'builder':
      return iteration === 1 ? `${run}-${key}` : `${run}-${key}-i${iteration}`
    case 'critic':
      return `${run}-${key}-critic-i${iteration}`
    case 'verifier':
      return `${run}-${key}-verify-i${iteration}`
    case 'play':
      return `${run}-${key}-play-i${iteration}`
  }
}

/** SPEC.md 2, working directories by role (builder): a builder's branch: `<run>/<key>` for iteration 1,
 * `<run>/<key>-i<n>` after. */
export const builderBranch = (run: string, key: string, iteration: number) =>
  iteration === 1 ? `${run}/${key}` : `${run}/${key}-i${iteration}`

/** SPEC.md 4.1 start behaviour 3 and 5, the conversation created: the conversation name of a lane; `attempt` > 0 for a
 * respawn in the same iteration. */
export const laneConvName = (run: string, key: string, role: Role, iteration: number, attempt: number) =>
  `${run}-${key}-${role}-i${iteration}${attempt ? `-${attempt + 1}` : ''}`

/** The launch decided before anything is created (launch rules 3-8). */
export interface LanePlan {
  run: string
  key: string
  role: Role
  iteration: number
  dirName: string
  /** The earlier lane whose directory is reused. */
  reuse?: LaneNow
  /** The live lane to stop first. */
  replace?: LaneNow
  /** For a new builder worktree: the branch to create and where to cut it. */
  branch?: string
  startPoint?: string
  /** For a detached worktree: the ref or commit to check out. */
  at?: string
  judged?: Judged
  answers?: AnsweredVerdict
  model: string
  harness: Harness
  effort?: Effort
}

export interface Judged {
  row: LaneNow
  iteration: number
  sha?: string
}

/** SPEC.md 4.1 launch rules 7 and 8: the newest done report among the lanes of one builder iteration (a reuse respawn
 * shares it). */
function newestDone(builders: LaneNow[], iteration: number): Report | undefined {
  return newest(
    builders
      .filter((b) => b.rec.lane.iteration === iteration)
      .flatMap((b) => b.reports.filter((r) => r.status === 'done')),
  )
}

/** SPEC.md 4.1 start, launch rule 3: one live lane per run, key and role; a second launch needs `--replace`.
 * `same` holds the lanes of this run, key and role. Returns the live lane to stop first, if any. */
export function oneLiveLane(
  req: Pick<StartRequest, 'role' | 'replace'>,
  run: string,
  key: string,
  same: LaneNow[],
): Decision<{ replace?: LaneNow }> {
  const live = same.find((l) => l.live)
  if (!live) return allow({})
  if (!req.replace)
    return refuse(
      'conflict',
      `lane ${run}/${key} ${req.role} i${live.rec.lane.iteration} is live (conv ${live.rec.id}); pass --replace to ` +
        `stop it and launch anew`,
    )
  return allow({ replace: live })
}

/** SPEC.md 4.1 start `--reuse`: the latest earlier lane of the same run, key and role, with nothing that would
 * change its directory, and not a builder whose branch is frozen (SPEC.md 3). A live one was refused by rule 3. */
export function reuseTarget(
  req: StartRequest,
  run: string,
  key: string,
  same: LaneNow[],
): Decision<{ reuse?: LaneNow }> {
  if (!req.reuse) return allow({})
  const reuse = newestLane(same)
  if (!reuse) return refuse('conflict', `refused: no earlier ${req.role} lane ${run}/${key} to reuse`)
  const moot = (['at', 'from', 'branch'] as const).find((o) => req[o] !== undefined)
  if (moot)
    return refuse('usage', `--${moot} does not go with --reuse: the lane continues in ${reuse.rec.lane.dir} as it is`)
  if (req.role === 'builder' && newestDone([reuse], reuse.rec.lane.iteration))
    return refuse(
      'conflict',
      `refused: branch ${reuse.rec.lane.branch} of ${run}/${key} i${reuse.rec.lane.iteration} is frozen (its ` +
        `builder reported done); start a new iteration`,
    )
  return allow({ reuse })
}

/** SPEC.md 4.1 start `--reuse`, issue 27: the latest earlier lane's directory is on a host that is not answering. It
 * cannot be reached there, and such a lane counts as live, which `--replace` could not stop either: refused first,
 * saying so. */
export function reuseReachable(req: Pick<StartRequest, 'reuse'>, same: LaneNow[]): Decision {
  const earlier = req.reuse ? newestLane(same) : undefined
  const host = earlier?.rec.lane.host
  if (!earlier?.hostLost || !host) return ALLOWED
  return refuse(
    'unavailable',
    `refused: the directory of conv ${earlier.rec.id} is on host ${host}, which is not answering (` +
      `${earlier.hostLost.detail ?? 'no answer'}); --reuse needs it`,
    `wait until it answers (svc host show ${host}), or start a new iteration`,
  )
}

/** SPEC.md 4.1 start `--model`: the request's model, else the role's model from the configuration; none is refused. */
export function launchModel(
  req: Pick<StartRequest, 'role' | 'model'>,
  defaults: RoleDefaults,
): Decision<{ model: string }> {
  const model = req.model ?? defaults.model
  if (!model)
    return refuse(
      'usage',
      `refused: no model for role ${req.role}: pass --model or set gauntlet.roles.${req.role}.model in projects.yaml`,
    )
  return allow({ model })
}

/** SPEC.md 4.1 start, launch rules 6 and 8: the builder row a critic or verifier judges, recorded once. A respawn
 * judges what the lane it continues judged (SPEC.md "Pairing and chains"), even when the builder has moved on since;
 * otherwise the newest iteration of the builder named by `--for`, which must be in the run. */
export function judgedBuilder(
  req: Pick<StartRequest, 'for'>,
  run: string,
  builders: LaneNow[],
  reuse: LaneNow | undefined,
): Decision<{ judged?: Judged }> {
  const continued = reuse?.rec.lane.for
  if (continued) {
    const row = builders.find((b) => b.rec.id === continued.id)
    if (!row)
      return refuse('not_found', `refused: the builder conv ${continued.id} judged by conv ${reuse!.rec.id} is gone`)
    return allow({ judged: { row, iteration: continued.iteration, sha: continued.sha } })
  }
  if (req.for === undefined) return allow({})
  if (!builders.length) return refuse('not_found', `refused: no builder ${req.for} in run ${run}`)
  const iteration = Math.max(...builders.map((b) => b.rec.lane.iteration))
  const row = newestLane(builders.filter((b) => b.rec.lane.iteration === iteration))!
  return allow({ judged: { row, iteration, sha: newestDone(builders, iteration)?.head } })
}

/** SPEC.md 4.1 start, launch rule 7: without `--at`, a new critic or verifier of a builder is checked out at the head
 * of the judged iteration's newest done report; with none, the launch is refused (a `--reuse` respawn is not: it
 * keeps its directory). One that judges no builder starts at `--at` or the base. */
export function criticCheckout(
  req: Pick<StartRequest, 'at'>,
  key: string,
  judged: Judged | undefined,
  reused: boolean,
  baseRef: string,
): Decision<{ at?: string }> {
  if (!judged) return allow({ at: req.at ?? baseRef })
  if (!req.at && !reused && !judged.sha)
    return refuse('conflict', `builder ${key} i${judged.iteration} has no done report; pass --at <sha>`)
  return allow({ at: req.at ?? judged.sha })
}

/** SPEC.md 4.1 start, launch rule 4: a new builder iteration cuts its branch from the branch recorded by the newest
 * report of the previous iteration (else that lane's branch, else the base), unless `--from` is given; the first
 * iteration is cut from the base. */
export function builderStartPoint(
  req: Pick<StartRequest, 'from'>,
  builders: LaneNow[],
  iteration: number,
  baseRef: string,
): string {
  if (req.from) return req.from
  if (iteration <= 1) return baseRef
  const prev = builders.filter((b) => b.rec.lane.iteration === iteration - 1)
  const report = newest(prev.flatMap((b) => b.reports.filter((r) => r.branch)))
  return report?.branch ?? newestLane(prev)?.rec.lane.branch ?? baseRef
}

/** SPEC.md 4.1 start, launch rules 3-8 over the lanes of the run: the whole launch decided before anything is
 * created. `now` dates the new builder, for the verdict it answers. */
export function planLaunch(
  req: StartRequest,
  run: string,
  key: string,
  runLanes: LaneNow[],
  defaults: RoleDefaults,
  baseRef: string,
  now: number,
): Decision<{ plan: LanePlan }> {
  const same = runLanes.filter((l) => l.rec.lane.key === key && l.rec.lane.role === req.role).sort(byCreation)
  const reachable = reuseReachable(req, same)
  if (!reachable.ok) return reachable
  const live = oneLiveLane(req, run, key, same)
  if (!live.ok) return live
  const reused = reuseTarget(req, run, key, same)
  if (!reused.ok) return reused
  const model = launchModel(req, defaults)
  if (!model.ok) return model
  const reuse = reused.reuse
  const iteration = reuse ? reuse.rec.lane.iteration : nextIteration(same.map((l) => l.rec.lane))
  const plan: LanePlan = {
    run,
    key,
    role: req.role,
    iteration,
    dirName: reuse ? reuse.rec.lane.dir : laneDirName(run, key, req.role, iteration),
    reuse,
    replace: live.replace,
    model: model.model,
    harness: req.harness ?? defaults.harness ?? 'claude',
    effort: req.effort ?? defaults.effort,
  }
  const builders = runLanes.filter((l) => l.rec.lane.key === key && l.rec.lane.role === 'builder')
  if (isJudgeRole(req.role)) {
    const judged = judgedBuilder(req, run, builders, reuse)
    if (!judged.ok) return judged
    const at = criticCheckout(req, key, judged.judged, reuse !== undefined, baseRef)
    if (!at.ok) return at
    plan.judged = judged.judged
    // A respawn continues in its directory, at whatever its lane checked out.
    if (!reuse?.rec.lane.for) plan.at = at.at
  } else if (req.role === 'orchestrator') plan.at = req.at ?? baseRef
  else if (req.role === 'builder' && !reuse) {
    plan.branch = req.branch ?? builderBranch(run, key, iteration)
    plan.startPoint = builderStartPoint(req, builders, iteration, baseRef)
    if (!req.from && iteration > 1) plan.answers = answeredVerdict(runLanes, key, iteration - 1, now)
  }
  if (!isGitBacked(req.role)) delete plan.at
  return allow({ plan })
}

/** SPEC.md 4.1 launch rule 5: the base is fetched before every git-backed launch. A fetch of the repository serves
 * an ask when what origin held at the ask is sure to be in it: the fetch has not begun yet (it waits its turn), or
 * began after the ask. So concurrent launches share fetches without one ever starting from an older fetch. */
export const fetchServes = (fetch: { startedAt?: number }, askedAt: number): boolean =>
  fetch.startedAt === undefined || fetch.startedAt > askedAt
