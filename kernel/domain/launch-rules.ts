import type { ConversationRecord } from './conversation.js'
import { SvcError, oneLine } from './errors.js'
import { invalidLaneKey, invalidRunKey, isLaneKey, isRunKey, type Effort, type Harness, type Role } from './keys.js'
import { nextIteration } from './iteration.js'
import { builderBranch, isGitBacked, laneDirName } from './lane-paths.js'
import { mayLaunch } from './launcher.js'
import type { Report } from './report.js'

export interface LaneRow {
  rec: ConversationRecord & { lane: NonNullable<ConversationRecord['lane']> }
  live: boolean
  reports: Report[]
}

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

export interface RoleDefaults {
  model?: string
  effort?: Effort
  harness?: Harness
}

/** SPEC.md 4.1 start, rules 1-3 and 6 that need nothing but the request and the launcher: checked before anything
 * is read or created. Returns the run and key. */
export function checkRequest(req: StartRequest, launcher: ConversationRecord, effective: ConversationRecord | undefined): { run: string; key: string } {
  if (!effective) throw new SvcError('forbidden', `conv ${launcher.id} has a broken chain of parent links; it cannot launch lanes`)
  const allowed = mayLaunch(effective, req.role)
  if (!allowed.ok) throw new SvcError('forbidden', `refused: ${allowed.reason}`)
  let run = req.run
  const launcherRun = effective.lane?.role === 'orchestrator' ? effective.lane.run : undefined
  if (launcherRun) {
    if (run && run !== launcherRun) throw new SvcError('forbidden', `refused: an orchestrator lane of run ${launcherRun} launches only into its own run, not ${run}`)
    run = launcherRun
  }
  if (!run) throw new SvcError('usage', '--run is required when the launcher is a root conversation')
  if (!isRunKey(run)) throw new SvcError('usage', invalidRunKey(run))
  if (req.role === 'critic' && !req.for) throw new SvcError('usage', 'a critic needs --for <builder key>')
  if (req.for !== undefined && req.role !== 'critic' && req.role !== 'verifier') throw new SvcError('usage', `--for is for critic and verifier lanes, not ${req.role}`)
  if (req.for !== undefined && !isLaneKey(req.for)) throw new SvcError('usage', invalidLaneKey(req.for))
  if (req.for !== undefined && req.key !== undefined && req.key !== req.for) throw new SvcError('usage', `--key ${req.key} differs from --for ${req.for}; a ${req.role} takes the key of the builder it judges`)
  const key = req.key ?? req.for
  if (key === undefined) throw new SvcError('usage', 'one of --key or --for is required')
  if (!isLaneKey(key)) throw new SvcError('usage', invalidLaneKey(key))
  if (req.branch !== undefined && req.role !== 'builder') throw new SvcError('usage', `--branch is for builder lanes, not ${req.role}`)
  if (req.from !== undefined && req.role !== 'builder') throw new SvcError('usage', `--from is for builder lanes, not ${req.role}`)
  if (req.at !== undefined && (req.role === 'builder' || req.role === 'play')) throw new SvcError('usage', `--at is for detached worktrees (orchestrator, critic, verifier), not ${req.role}`)
  const optionLike = optionLikeRef(req)
  if (optionLike) throw new SvcError('usage', optionLike)
  return { run, key }
}

/** A ref or branch name the user gives reaches git only as a name, never as one of its options: one that starts with
 * `-` is refused before git sees it. */
export function optionLikeRef(req: Pick<StartRequest, 'from' | 'at' | 'branch'>): string | undefined {
  const o = (['from', 'at', 'branch'] as const).find((k) => req[k]?.startsWith('-'))
  if (!o) return undefined
  const what = o === 'branch' ? "a branch name never starts with '-'" : "a ref never starts with '-'; give a branch, tag or commit"
  return `--${o} ${oneLine(req[o]!, 80)}: ${what}`
}

export interface LaunchPlan {
  run: string
  key: string
  role: Role
  iteration: number
  dirName: string
  /** The earlier lane whose directory is reused. */
  reuse?: LaneRow
  /** The live lane to stop first. */
  replace?: LaneRow
  /** For a new builder worktree: the branch to create and where to cut it. */
  branch?: string
  startPoint?: string
  /** For a detached worktree: the ref or commit to check out. */
  at?: string
  judged?: { row: LaneRow; iteration: number; sha?: string }
  answers?: { id: string; verdict?: string; verdictFile?: string }
  model: string
  harness: Harness
  effort?: Effort
}

const newest = <T extends { at: number }>(xs: T[]) => xs.reduce<T | undefined>((a, b) => (!a || b.at >= a.at ? b : a), undefined)

/** The newest done report among the lanes of one builder iteration (a reuse respawn shares it). */
export function newestDone(builders: LaneRow[], iteration: number): Report | undefined {
  return newest(builders.filter((b) => b.rec.lane.iteration === iteration).flatMap((b) => b.reports.filter((r) => r.status === 'done')))
}

/** SPEC.md 4.1 start, rules 3-8 over the lanes of the run: the whole launch decided before anything is created. */
export function planLaunch(
  req: StartRequest,
  run: string,
  key: string,
  runLanes: LaneRow[],
  defaults: RoleDefaults,
  baseRef: string,
): LaunchPlan {
  const same = runLanes.filter((l) => l.rec.lane.key === key && l.rec.lane.role === req.role).sort((a, b) => a.rec.createdAt - b.rec.createdAt)
  const live = same.find((l) => l.live)
  let replace: LaneRow | undefined
  if (live) {
    if (!req.replace) throw new SvcError('conflict', `lane ${run}/${key} ${req.role} i${live.rec.lane.iteration} is live (conv ${live.rec.id}); pass --replace to stop it and launch anew`)
    replace = live
  }
  let reuse: LaneRow | undefined
  // A live earlier lane was refused just above (or is being replaced): a reused lane is never live.
  if (req.reuse) {
    reuse = same.at(-1)
    if (!reuse) throw new SvcError('conflict', `refused: no earlier ${req.role} lane ${run}/${key} to reuse`)
    const moot = (['at', 'from', 'branch'] as const).find((o) => req[o] !== undefined)
    if (moot) throw new SvcError('usage', `--${moot} does not go with --reuse: the lane continues in ${reuse.rec.lane.dir} as it is`)
    if (req.role === 'builder' && newestDone([reuse], reuse.rec.lane.iteration))
      throw new SvcError('conflict', `refused: branch ${reuse.rec.lane.branch} of ${run}/${key} i${reuse.rec.lane.iteration} is frozen (its builder reported done); start a new iteration`)
  }
  const iteration = reuse ? reuse.rec.lane.iteration : nextIteration(same.map((l) => l.rec.lane))
  const model = req.model ?? defaults.model
  if (!model) throw new SvcError('usage', `refused: no model for role ${req.role}: pass --model or set gauntlet.roles.${req.role}.model in projects.yaml`)
  const plan: LaunchPlan = {
    run,
    key,
    role: req.role,
    iteration,
    dirName: reuse ? reuse.rec.lane.dir : laneDirName(run, key, req.role, iteration),
    reuse,
    replace,
    model,
    harness: req.harness ?? defaults.harness ?? 'claude',
    effort: req.effort ?? defaults.effort,
  }
  const builders = runLanes.filter((l) => l.rec.lane.key === key && l.rec.lane.role === 'builder')
  if (req.role === 'critic' || req.role === 'verifier') {
    const continued = reuse?.rec.lane.for
    if (continued) {
      // A respawn judges what the lane it continues judged (SPEC.md "Pairing and chains": it shares its pairing),
      // even when the builder has moved on to a later iteration since.
      const row = builders.find((b) => b.rec.id === continued.id)
      if (!row) throw new SvcError('not_found', `refused: the builder conv ${continued.id} judged by conv ${reuse!.rec.id} is gone`)
      plan.judged = { row, iteration: continued.iteration, sha: continued.sha }
    } else if (req.for !== undefined) {
      if (!builders.length) throw new SvcError('not_found', `refused: no builder ${req.for} in run ${run}`)
      const judgedIteration = Math.max(...builders.map((b) => b.rec.lane.iteration))
      const row = builders.filter((b) => b.rec.lane.iteration === judgedIteration).sort((a, b) => a.rec.createdAt - b.rec.createdAt).at(-1)!
      const done = newestDone(builders, judgedIteration)
      if (!req.at && !reuse && !done?.head) throw new SvcError('conflict', `builder ${key} i${judgedIteration} has no done report; pass --at <sha>`)
      plan.judged = { row, iteration: judgedIteration, sha: done?.head }
      plan.at = req.at ?? done?.head
    } else plan.at = req.at ?? baseRef
  } else if (req.role === 'orchestrator') plan.at = req.at ?? baseRef
  else if (req.role === 'builder' && !reuse) {
    plan.branch = req.branch ?? builderBranch(run, key, iteration)
    if (req.from) plan.startPoint = req.from
    else if (iteration > 1) {
      const prev = builders.filter((b) => b.rec.lane.iteration === iteration - 1)
      const report = newest(prev.flatMap((b) => b.reports.filter((r) => r.branch)))
      plan.startPoint = report?.branch ?? prev.at(-1)?.rec.lane.branch ?? baseRef
      plan.answers = answeredVerdict(runLanes, key, iteration - 1, Date.now())
    } else plan.startPoint = baseRef
  }
  if (!isGitBacked(req.role)) delete plan.at
  return plan
}

/** SPEC.md "Pairing and chains": a builder of iteration n >= 2 answers the newest critic of iteration n - 1
 * created before it. */
export function answeredVerdict(runLanes: LaneRow[], key: string, iteration: number, before: number): LaunchPlan['answers'] {
  const critics = runLanes
    .filter((l) => l.rec.lane.key === key && (l.rec.lane.role === 'critic' || l.rec.lane.role === 'verifier') && l.rec.lane.for?.iteration === iteration && l.rec.createdAt < before)
    .sort((a, b) => a.rec.createdAt - b.rec.createdAt)
  const c = critics.at(-1)
  if (!c) return undefined
  const verdict = newest(c.reports.filter((r) => r.verdict))
  return { id: c.rec.id, verdict: verdict?.verdict, verdictFile: verdict?.verdictFile }
}

/** SPEC.md 4.1 launch rule 5: the base is fetched before every git-backed launch. A fetch of the repository serves
 * an ask when what origin held at the ask is sure to be in it: the fetch has not begun yet (it waits its turn), or
 * began after the ask. So concurrent launches share fetches without one ever starting from an older fetch. */
export const fetchServes = (fetch: { startedAt?: number }, askedAt: number): boolean => fetch.startedAt === undefined || fetch.startedAt > askedAt
