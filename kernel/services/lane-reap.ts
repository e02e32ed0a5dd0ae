import { existsSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { isLive } from '../domain/activity.js'
import { SvcError } from '../domain/errors.js'
import { isGitBacked } from '../domain/lane-paths.js'
import type { LaneRecord } from '../domain/lane-summary.js'
import { archiveFailedMessage, parkedPatchName, reapRefusal, unpushedWarning, type ReapFacts } from '../domain/reap-plan.js'
import { convFiles } from '../home.js'
import { writeFileAtomic } from '../io/atomic-file.js'
import { faultFlag } from '../io/fault.js'
import * as git from '../io/git.js'
import { processesInside } from '../io/procs.js'
import type { PortInput, ReapResult } from '../port.js'
import { KeyedQueue } from '../serial.js'
import type { KernelContext } from './context.js'
import { stopConversation } from './conversations.js'
import type { GitFactsCache } from './git-facts.js'
import { laneViews } from './lane-list.js'
import { realPathOf } from './lane-start.js'

/** SPEC.md section 8: how long a reap waits for a live harness to stop. */
export const REAP_STOP_MS = 30_000
const reaps = new KeyedQueue()

async function gather(ctx: KernelContext, rec: LaneRecord, park: boolean, stopped: boolean): Promise<ReapFacts> {
  const dir = rec.cwd
  const exists = existsSync(dir)
  const dirReal = exists ? realpathSync(dir) : undefined
  const gitBacked = isGitBacked(rec.lane.role) && exists && git.worktreeGitDir(dir) !== undefined
  const status = gitBacked ? await git.statusFacts(dir) : undefined
  return {
    role: rec.lane.role,
    dirReal,
    rootReal: realPathOf(rec.lane.root),
    harnessAlive: stopped && ctx.runners.harnessAlive(rec.name),
    processes: stopped && dirReal ? processesInside(dirReal) : [],
    dirtyPaths: status?.dirtyPaths ?? 0,
    park,
    playHasGit: !isGitBacked(rec.lane.role) && exists && existsSync(join(dir, '.git')),
  }
}

/** Save every change of the worktree to parked-<timestamp>.patch, prove the patch reproduces it, keep its tree
 * reachable from a ref, check once more that nothing changed meanwhile, and only then clean the tree. */
async function parkWork(ctx: KernelContext, rec: LaneRecord): Promise<NonNullable<ReapResult['parked']>> {
  const dir = rec.cwd
  const tree = await git.snapshotTree(dir)
  const patch = await git.diffBinary(dir, 'HEAD', tree)
  if ((await git.treeFromPatch(dir, patch)) !== tree) throw new SvcError('conflict', 'refused: the parked patch does not reproduce the worktree; nothing was cleaned')
  const name = parkedPatchName(new Date())
  const ref = `refs/svc/parked/${rec.name}/${name.slice(7, -6)}`
  await git.keepTree(dir, tree, ref, `svc: parked work of conv ${rec.id} (${rec.name})`)
  const path = join(convFiles(ctx.home, rec.name).dir, name)
  await writeFileAtomic(path, patch)
  if ((await git.snapshotTree(dir)) !== tree)
    throw new SvcError('conflict', `refused: the worktree changed while it was parked; the patch is kept at ${path}, nothing was cleaned`)
  const paths = (await git.statusFacts(dir)).dirtyPaths
  await git.cleanTree(dir)
  return { patch: path, ref, paths }
}

/** `svc lane reap`: steps 1-7 of SPEC.md 4.1, in order. It either completes with every byte kept, or refuses and
 * archives nothing. */
export async function laneReap(ctx: KernelContext, cache: GitFactsCache, input: PortInput<'laneReap'>): Promise<ReapResult> {
  const found = ctx.resolve(input.lane)
  if (!found.lane) throw new SvcError('usage', `conv ${found.id} (${found.name}) is not a lane`)
  const rec = found as LaneRecord
  return reaps.run(rec.name, async () => {
    if (ctx.store.get(rec.id)!.archived) throw new SvcError('conflict', `refused: conv ${rec.id} (${rec.name}) is already reaped and archived`)
    const park = Boolean(input.park)
    // What can be refused before the lane is touched, is refused before it is touched.
    const early = reapRefusal(await gather(ctx, rec, park, false), REAP_STOP_MS / 1000)
    if (early) throw new SvcError('conflict', early)
    if (isLive(ctx.view(rec).activity.value) || ctx.runners.runnerAlive(rec.name)) {
      try {
        await stopConversation(ctx, rec, REAP_STOP_MS)
      } catch {
        throw new SvcError('conflict', `refused: the harness is still alive after ${REAP_STOP_MS / 1000} s`)
      }
    }
    const facts = await gather(ctx, rec, park, true)
    const refusal = reapRefusal(facts, REAP_STOP_MS / 1000)
    if (refusal) throw new SvcError('conflict', refusal)
    const warnings: string[] = []
    let parked: ReapResult['parked']
    let removed: string | null = null
    if (facts.dirReal && isGitBacked(rec.lane.role)) {
      if (facts.dirtyPaths > 0) parked = await parkWork(ctx, rec)
      const w = unpushedWarning(rec.lane.branch, await git.unpushedCount(rec.cwd))
      if (w) warnings.push(w)
      await git.worktreeRemove(rec.lane.repo!, rec.cwd)
      cache.forget(rec.cwd)
      removed = rec.cwd
    } else if (facts.dirReal) {
      if (facts.playHasGit) warnings.push(`warning: ${rec.cwd} holds a .git; the play directory is kept`)
      else {
        rmSync(rec.cwd, { recursive: true })
        removed = rec.cwd
      }
    } else {
      warnings.push(`warning: ${rec.cwd} was already gone`)
      if (rec.lane.repo && isGitBacked(rec.lane.role)) await git.git(rec.lane.repo, ['worktree', 'prune']).catch(() => '')
    }
    let archived = false
    let archiveError: string | undefined
    if (!input.keep) {
      try {
        if (faultFlag('ARCHIVE')) throw new Error('injected archive failure')
        await ctx.store.update(rec.id, { archived: { at: Date.now() } })
        archived = true
      } catch (e) {
        archiveError = archiveFailedMessage((e as Error).message, rec.id)
      }
    }
    ctx.emit({ name: rec.name, what: 'record' })
    const [lane] = await laneViews(ctx, cache, (r) => r.id === rec.id)
    return { lane, removed, ...(parked ? { parked } : {}), warnings, archived, ...(archiveError ? { archiveError } : {}) }
  })
}
