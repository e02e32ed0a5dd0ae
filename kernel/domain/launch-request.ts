import type { ConversationRecord } from './conversation.js'
import { oneLine } from './errors.js'
import { invalidLaneKey, invalidRunKey, isJudgeRole, isLaneKey, isRunKey, type Effort, type Harness, type Role } from './keys.js'
import { mayLaunch } from './launcher.js'
import { allow, refuse, type Decision } from './refusal.js'

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
export function launchRun(req: Pick<StartRequest, 'role' | 'run'>, launcher: ConversationRecord, effective: ConversationRecord | undefined): Decision<{ run: string }> {
  if (!effective) return refuse('forbidden', `conv ${launcher.id} has a broken chain of parent links; it cannot launch lanes`)
  const allowed = mayLaunch(effective, req.role)
  if (!allowed.ok) return allowed
  const launcherRun = effective.lane?.role === 'orchestrator' ? effective.lane.run : undefined
  if (launcherRun && req.run && req.run !== launcherRun)
    return refuse('forbidden', `refused: an orchestrator lane of run ${launcherRun} launches only into its own run, not ${req.run}`)
  const run = launcherRun ?? req.run
  if (!run) return refuse('usage', '--run is required when the launcher is a root conversation')
  if (!isRunKey(run)) return refuse('usage', invalidRunKey(run))
  return allow({ run })
}

/** SPEC.md 4.1 start, launch rule 6 (the request's part): a critic needs `--for`, `--key` defaults to `--for`, and a
 * different `--key` is refused. Returns the lane key. */
export function laneKeyOf(req: Pick<StartRequest, 'role' | 'key' | 'for'>): Decision<{ key: string }> {
  if (req.role === 'critic' && !req.for) return refuse('usage', 'a critic needs --for <builder key>')
  if (req.for !== undefined && !isJudgeRole(req.role)) return refuse('usage', `--for is for critic and verifier lanes, not ${req.role}`)
  if (req.for !== undefined && !isLaneKey(req.for)) return refuse('usage', invalidLaneKey(req.for))
  if (req.for !== undefined && req.key !== undefined && req.key !== req.for)
    return refuse('usage', `--key ${req.key} differs from --for ${req.for}; a ${req.role} takes the key of the builder it judges`)
  const key = req.key ?? req.for
  if (key === undefined) return refuse('usage', 'one of --key or --for is required')
  if (!isLaneKey(key)) return refuse('usage', invalidLaneKey(key))
  return allow({ key })
}

/** SPEC.md 4.1 start options: `--branch` and `--from` are for builders, `--at` for detached worktrees, and no ref
 * starts with `-`. */
export function optionsFitRole(req: Pick<StartRequest, 'role' | 'branch' | 'from' | 'at'>): Decision {
  if (req.branch !== undefined && req.role !== 'builder') return refuse('usage', `--branch is for builder lanes, not ${req.role}`)
  if (req.from !== undefined && req.role !== 'builder') return refuse('usage', `--from is for builder lanes, not ${req.role}`)
  if (req.at !== undefined && (req.role === 'builder' || req.role === 'play'))
    return refuse('usage', `--at is for detached worktrees (orchestrator, critic, verifier), not ${req.role}`)
  const optionLike = optionLikeRef(req)
  return optionLike ? refuse('usage', optionLike) : allow({})
}

/** SPEC.md 4.1 start: launch rules 1, 2 and 6 and the options, which need nothing but the request and the
 * launcher; checked before anything is read or created. Returns the run and key. */
export function checkRequest(req: StartRequest, launcher: ConversationRecord, effective: ConversationRecord | undefined): Decision<{ run: string; key: string }> {
  const run = launchRun(req, launcher, effective)
  if (!run.ok) return run
  const key = laneKeyOf(req)
  if (!key.ok) return key
  const options = optionsFitRole(req)
  return options.ok ? allow({ run: run.run, key: key.key }) : options
}

/** A ref or branch name the user gives reaches git only as a name, never as one of its options: one that starts with
 * `-` is refused before git sees it. */
export function optionLikeRef(req: { from?: string; at?: string; branch?: string }): string | undefined {
  const o = (['from', 'at', 'branch'] as const).find((k) => req[k]?.startsWith('-'))
  if (!o) return undefined
  const what = o === 'branch' ? "a branch name never starts with '-'" : "a ref never starts with '-'; give a branch, tag or commit"
  return `--${o} ${oneLine(req[o]!, 80)}: ${what}`
}
