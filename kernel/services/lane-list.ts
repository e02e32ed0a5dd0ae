import { isGitBacked } from '../domain/lane-paths.js'
import { chainText, newestReport, rowVerdict, type LaneInfo, type LaneRecord } from '../domain/lane-summary.js'
import { SvcError } from '../domain/errors.js'
import { isLaneKey, isRunKey } from '../domain/keys.js'
import type { LaneView, PortInput } from '../port.js'
import type { KernelContext } from './context.js'
import type { GitFactsCache } from './git-facts.js'

const lanes = (ctx: KernelContext) => ctx.store.all().filter((r): r is LaneRecord => Boolean(r.lane))

/** Lane rows with everything the list, show, the API and the deck print: activity with evidence, newest report,
 * verdict (stale or not), git facts for git-backed lanes that are not archived. */
export async function laneViews(ctx: KernelContext, cache: GitFactsCache, pick: (r: LaneRecord) => boolean): Promise<LaneView[]> {
  const now = Date.now()
  const chosen = lanes(ctx).filter(pick)
  // Verdicts and staleness need the other lanes of the same runs and keys.
  const related = lanes(ctx).filter((r) => chosen.some((c) => c.lane.run === r.lane.run && c.lane.key === r.lane.key))
  const gitDirs = related.filter((r) => isGitBacked(r.lane.role) && !r.archived).map((r) => r.cwd)
  const facts = await cache.many(gitDirs, now)
  const reports = await Promise.all(related.map((rec) => ctx.store.reports(rec.name)))
  const infos = new Map<string, LaneInfo>(related.map((rec, i) => [rec.id, { rec, reports: reports[i], activity: ctx.view(rec, now).activity, head: facts.get(rec.cwd)?.head }]))
  const all = [...infos.values()]
  return chosen
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((rec) => {
      const info = infos.get(rec.id)!
      const v = ctx.view(rec, now)
      const g = facts.get(rec.cwd)
      const r = newestReport(info)
      return {
        id: rec.id,
        name: rec.name,
        parent: rec.parent,
        run: rec.lane.run,
        key: rec.lane.key,
        role: rec.lane.role,
        iteration: rec.lane.iteration,
        cwd: rec.cwd,
        harness: rec.harness,
        model: v.model,
        effort: rec.effort,
        cost: v.cost,
        createdAt: rec.createdAt,
        archived: Boolean(rec.archived),
        activity: v.activity,
        ...(rec.lane.for ? { for: rec.lane.for } : {}),
        ...(r ? { report: { seq: r.seq, status: r.status, at: r.at } } : {}),
        ...(rowVerdict(info, all) ? { verdict: rowVerdict(info, all) } : {}),
        ...(rec.lane.branch ? { branch: rec.lane.branch } : {}),
        ...(g ? { git: g } : {}),
      } satisfies LaneView
    })
}

export async function laneList(ctx: KernelContext, cache: GitFactsCache, input: PortInput<'laneList'>): Promise<LaneView[]> {
  if (input.run !== undefined && !isRunKey(input.run)) throw new SvcError('usage', `invalid run key '${input.run}': it must match ^[a-z0-9][a-z0-9-]{0,31}$`)
  if (input.key !== undefined && !isLaneKey(input.key)) throw new SvcError('usage', `invalid lane key '${input.key}': it must match ^[a-z0-9][a-z0-9._-]{0,39}$`)
  const parent = input.parent !== undefined ? ctx.resolve(input.parent).id : undefined
  return laneViews(ctx, cache, (r) => (input.run === undefined || r.lane.run === input.run) && (input.key === undefined || r.lane.key === input.key) && (parent === undefined || r.parent === parent))
}

/** `show`: from any lane of a chain (or --run and --key), the chain text and every lane of that run and key. */
export async function laneShow(ctx: KernelContext, cache: GitFactsCache, input: PortInput<'laneShow'>): Promise<{ chain: string; lanes: LaneView[] }> {
  let run = input.run
  let key = input.key
  if (input.lane !== undefined) {
    if (run !== undefined || key !== undefined) throw new SvcError('usage', 'show takes a lane, or --run with --key, not both')
    const rec = ctx.resolve(input.lane)
    if (!rec.lane) throw new SvcError('usage', `conv ${rec.id} (${rec.name}) is not a lane`)
    run = rec.lane.run
    key = rec.lane.key
  } else if (run === undefined || key === undefined) throw new SvcError('usage', 'show takes a lane, or --run with --key')
  const views = await laneList(ctx, cache, { run, key })
  if (!views.length) throw new SvcError('not_found', `no lanes ${run}/${key}`)
  const infos: LaneInfo[] = await Promise.all(
    lanes(ctx)
      .filter((r) => r.lane.run === run && r.lane.key === key)
      .map(async (rec) => ({ rec, reports: await ctx.store.reports(rec.name), activity: ctx.view(rec).activity, head: views.find((v) => v.id === rec.id)?.git?.head })),
  )
  return { chain: chainText(infos, run!, key!), lanes: views }
}

