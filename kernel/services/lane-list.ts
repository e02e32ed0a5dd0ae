import { isGitBacked } from '../domain/lane-paths.js'
import { worktreeStamp } from '../io/git.js'
import { chainText, newestReport, rowVerdict, type LaneInfo, type LaneRecord } from '../domain/lane-summary.js'
import { SvcError } from '../domain/errors.js'
import { isLaneKey, isRunKey } from '../domain/keys.js'
import type { LaneView, PortInput } from '../port.js'
import { activityOf } from './conv-view.js'
import type { KernelContext } from './context.js'
import type { GitFactsCache } from './git-facts.js'

const lanes = (ctx: KernelContext) => ctx.store.all().filter((r): r is LaneRecord => Boolean(r.lane))

/** Lane rows with everything the list, show, the API and the deck print: activity with evidence, newest report,
 * verdict (stale or not), git facts for git-backed lanes that are not archived. Verdicts and staleness need the
 * other lanes of the same run and key, so lanes are grouped once by run and key. */
export async function laneViews(ctx: KernelContext, cache: GitFactsCache, pick: (r: LaneRecord) => boolean): Promise<LaneView[]> {
  const now = Date.now()
  const groups = new Map<string, LaneRecord[]>()
  const chosen: LaneRecord[] = []
  for (const r of lanes(ctx)) {
    const g = `${r.lane.run}\0${r.lane.key}`
    const list = groups.get(g)
    if (list) list.push(r)
    else groups.set(g, [r])
    if (pick(r)) chosen.push(r)
  }
  const related = [...new Set(chosen.map((c) => `${c.lane.run}\0${c.lane.key}`))].flatMap((g) => groups.get(g)!)
  const facts = await cache.many(related.filter((r) => isGitBacked(r.lane.role) && !r.archived).map((r) => r.cwd), now)
  const reports = await Promise.all(related.map((rec) => ctx.store.reports(rec.name)))
  const views = new Map(related.map((rec) => [rec.id, ctx.view(rec, now)]))
  const infos = new Map<string, LaneInfo>(related.map((rec, i) => [rec.id, { rec, reports: reports[i], activity: activityOf(views.get(rec.id)!), head: facts.get(rec.cwd)?.head }]))
  const groupInfos = new Map([...groups].map(([g, recs]) => [g, recs.filter((r) => infos.has(r.id)).map((r) => infos.get(r.id)!)]))
  return chosen
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((rec) => {
      const info = infos.get(rec.id)!
      const v = views.get(rec.id)!
      const g = facts.get(rec.cwd)
      const r = newestReport(info)
      const verdict = rowVerdict(info, groupInfos.get(`${rec.lane.run}\0${rec.lane.key}`)!)
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
        ...(v.reason ? { reason: v.reason } : {}),
        evidence: v.evidence,
        ...(rec.lane.for ? { for: rec.lane.for } : {}),
        ...(r ? { report: { seq: r.seq, status: r.status, at: r.at } } : {}),
        ...(verdict ? { verdict } : {}),
        ...(rec.lane.branch ? { branch: rec.lane.branch } : {}),
        ...(g ? { git: g } : {}),
      } satisfies LaneView
    })
}

/** The git state of every worktree a list could show, as cheap file stamps: equal stamps, equal git facts. */
export const worktreesFingerprint = (ctx: KernelContext) =>
  lanes(ctx)
    .filter((r) => isGitBacked(r.lane.role) && !r.archived)
    .map((r) => worktreeStamp(r.cwd))
    .join('|')

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
      .map(async (rec) => ({ rec, reports: await ctx.store.reports(rec.name), activity: activityOf(ctx.view(rec)), head: views.find((v) => v.id === rec.id)?.git?.head })),
  )
  return { chain: chainText(infos, run!, key!), lanes: views }
}

