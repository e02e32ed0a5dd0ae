import { SvcError } from '../domain/errors.js'
import { workDirOf } from '../domain/worker-rules.js'
import { dirHolder, planUndo, type LaunchIntent, type UndoFacts, type UndoPlan } from '../domain/lane-claim.js'
import { homePaths } from '../io/home.js'
import type { KernelContext } from './context.js'

/** A launch holds its directory through an intent written before git or the lanes root is touched, until the lane's
 * record claims the directory. What a launch cut short made, no record claims: it is taken back at the next kernel
 * start (or by the next launch into the directory), as far as domain/lane-claim's planUndo allows. */

/** Intent files of the launches under way in this kernel. */
const underWay = new Set<string>()

/** Hold `intent.dir` for this launch, or refuse: another launch is making it, or one cut short left it. */
export async function holdDirectory(ctx: KernelContext, intent: LaunchIntent): Promise<string> {
  const path = ctx.io.intents.intentPath(ctx.home, intent.dir)
  if (underWay.has(path)) throw new SvcError('conflict', `refused: another launch is making ${intent.dir} right now`)
  underWay.add(path)
  try {
    if (!(await ctx.io.intents.recordIntent(ctx.home, intent))) {
      const plan = await settle(ctx, path, true)
      if (plan.leftover) throw new SvcError('conflict', `refused: ${plan.leftover.detail}; ${plan.leftover.fix}`)
      if (!(await ctx.io.intents.recordIntent(ctx.home, intent)))
        throw new SvcError('conflict', `refused: another launch is making ${intent.dir} right now`)
    }
    ctx.io.fault.point('launch-intent')
    return path
  } catch (e) {
    underWay.delete(path)
    throw e
  }
}

/** The lane's record claims the directory now: the intent goes. */
export async function releaseDirectory(ctx: KernelContext, path: string): Promise<void> {
  await ctx.io.intents.dropIntent(path)
  underWay.delete(path)
}

/** A launch that failed: what it left is taken back as after a crash; what cannot be is logged, and svc doctor shows
 * it with its fix. */
export async function abandonDirectory(ctx: KernelContext, path: string): Promise<void> {
  try {
    const plan = await settle(ctx, path, true)
    if (plan.leftover) ctx.log('warn', `${plan.leftover.detail}; fix: ${plan.leftover.fix}`)
  } catch (e) {
    ctx.log('warn', `taking back a failed launch (${path}): ${(e as Error).message}`)
  } finally {
    underWay.delete(path)
  }
}

/** At kernel start: every intent is of a launch a killed kernel left; each is finished or taken back. */
export async function settleInterruptedLaunches(ctx: KernelContext): Promise<void> {
  // Made now, not by a launch's first intent: a launch refused after its intent leaves the home as it found it.
  ctx.io.files.mkdir(homePaths(ctx.home).launches, { recursive: true, mode: 0o700 })
  const { intents, temps } = ctx.io.intents.intentFiles(ctx.home)
  await Promise.all(temps.map((t) => ctx.io.files.unlink(t).catch(() => {})))
  for (const path of intents) {
    if (underWay.has(path)) continue
    try {
      const plan = await settle(ctx, path, true)
      if (plan.leftover) ctx.log('warn', `${plan.leftover.detail}; fix: ${plan.leftover.fix}`)
      else if (plan.removeWorktree || plan.removeDir || plan.deleteBranch)
        ctx.log(
          'warn',
          `took back what an unfinished launch made at ${plan.dir}` +
            `${plan.deleteBranch ? ` and its branch ${plan.deleteBranch}` : ''}`,
        )
    } catch (e) {
      ctx.log('warn', `an interrupted launch (${path}): ${(e as Error).message}`)
    }
  }
}

/** For svc doctor: what interrupted launches left that could not be taken back, each with its fix. Changes nothing. */
export async function launchLeftovers(ctx: KernelContext): Promise<{ detail: string; fix: string }[]> {
  const found: { detail: string; fix: string }[] = []
  for (const path of ctx.io.intents.intentFiles(ctx.home).intents) {
    if (underWay.has(path)) continue
    try {
      const plan = await settle(ctx, path, false)
      if (plan.leftover) found.push(plan.leftover)
    } catch (e) {
      found.push({ detail: `an interrupted launch: ${(e as Error).message}`, fix: `look at ${path}, then remove it` })
    }
  }
  return found
}

/** Decide what to do with the intent at `path` (domain/lane-claim planUndo) and, when `apply`, do it. */
async function settle(ctx: KernelContext, path: string, apply: boolean): Promise<UndoPlan & { dir?: string }> {
  const intent = ctx.io.intents.readIntent(path)
  if (!intent) return { settled: true }
  const plan = planUndo(intent, await undoFacts(ctx, intent))
  if (!apply) return plan
  const repo = intent.repo!
  if (plan.removeWorktree === 'prune') await ctx.io.git.worktreePrune(repo)
  else if (plan.removeWorktree) await ctx.io.git.worktreeRemove(repo, intent.dir, plan.removeWorktree === 'force')
  if (plan.deleteBranch) await ctx.io.git.deleteBranch(repo, plan.deleteBranch)
  if (plan.removeDir) ctx.io.files.removeEmptyDir(intent.dir)
  if (plan.settled) await ctx.io.intents.dropIntent(path)
  return { ...plan, dir: intent.dir }
}

async function undoFacts(ctx: KernelContext, intent: LaunchIntent): Promise<UndoFacts> {
  const records = ctx.store.all()
  const claimed = records.some((r) => workDirOf(r)?.made?.launch === intent.id)
  const heldByLane = dirHolder(intent.dir, records) !== undefined
  const dirExists = ctx.io.files.exists(intent.dir)
  const { launch: launchFound } = ctx.io.dirs.identityOf(intent.dir)
  const worktree =
    !claimed && intent.kind === 'worktree' && intent.repo
      ? await ctx.io.dirs.worktreeAt(intent.repo, intent.dir)
      : undefined
  const status = worktree && dirExists ? await ctx.io.git.statusFacts(intent.dir).catch(() => undefined) : undefined
  const dirtyPaths = worktree && dirExists ? status?.dirtyPaths : 0
  const branchTip =
    worktree && intent.branch ? await ctx.io.git.revParse(intent.repo!, `refs/heads/${intent.branch}`) : undefined
  return {
    claimed,
    heldByLane,
    ...(launchFound ? { launchFound } : {}),
    dirExists,
    entries: ctx.io.dirs.entriesOf(intent.dir),
    ...(worktree ? { worktree } : {}),
    dirtyPaths,
    ...(status?.head ? { head: status.head } : {}),
    ...(branchTip ? { branchTip } : {}),
  }
}
