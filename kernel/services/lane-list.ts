import { gitFactsFrom, turnEndedWithoutReport } from '../domain/activity.js'
import { activityOf } from './conv-view.js'
import { inIdOrder, newest } from '../domain/newest.js'
import { chainFound, inChain, isLane, type LaneChainNow, type LaneRecord } from '../domain/lane.js'
import { chainText, rowVerdict } from '../domain/chains.js'
import { newestReport } from '../domain/list-show.js'
import { keysFit } from '../domain/keys.js'
import { showForm } from '../domain/list-show.js'
import type { LaneView, PortInput } from '../port/port.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'
import { laneFailure } from '../domain/lane-failure.js'
import type { GitFactsNow, GitFactsReader } from './git-facts.js'

const lanes = (ctx: KernelContext) => ctx.store.all().filter(isLane)

/** The lanes `pick` chooses, read once with what their rows need: each lane's view, reports and git facts, and
 * the other lanes of the same run and key (verdicts, staleness and chains need them). */
async function readLanes(ctx: KernelContext, cache: GitFactsReader, pick: (r: LaneRecord) => boolean) {
  const now = ctx.io.clock.now()
  const groups = new Map<string, LaneRecord[]>()
  const chosen: LaneRecord[] = []
  for (const r of lanes(ctx)) {
    const g = groupKey(r.lane.run, r.lane.key)
    const list = groups.get(g)
    if (list) list.push(r)
    else groups.set(g, [r])
    if (pick(r)) chosen.push(r)
  }
  const related = [...new Set(chosen.map((c) => groupKey(c.lane.run, c.lane.key)))].flatMap((g) => groups.get(g)!)
  const read = await cache.many(
    related.filter((r) => gitFactsFrom(r) === 'worktree').map((r) => r.cwd),
    now,
  )
  const sent = sentGitFacts(ctx, related)
  const facts = new Map(related.map((r) => [r.id, gitOf(r, read, sent)]))
  const reports = await Promise.all(related.map((rec) => ctx.store.reports(rec.name)))
  const views = new Map(related.map((rec) => [rec.id, ctx.view(rec, now)]))
  const infos = new Map<string, LaneChainNow>(
    related.map((rec, i) => [rec.id, { rec, reports: reports[i], head: facts.get(rec.id)?.head }]),
  )
  const groupInfos = new Map(
    [...groups].map(([g, recs]) => [g, recs.filter((r) => infos.has(r.id)).map((r) => infos.get(r.id)!)]),
  )
  const ends = new Map(chosen.map((rec) => [rec.id, ctx.facts.get(rec.name).state?.ended ?? rec.ended]))
  return {
    chosen,
    views,
    facts,
    infos,
    ends,
    group: (run: string, key: string) => groupInfos.get(groupKey(run, key)) ?? [],
  }
}

const groupKey = (run: string, key: string) => `${run}\0${key}`

const onHost = (r: LaneRecord) => `${r.lane.host}\0${r.cwd}`

/** What the host runners last sent of the worktrees of these lanes on hosts, by host and directory: the newest of
 * what any lane working there sent, so that the lanes of one worktree (a --reuse) read alike, as here. */
function sentGitFacts(ctx: KernelContext, lanes: LaneRecord[]): Map<string, GitFactsNow> {
  const byPlace = new Map<string, LaneRecord[]>()
  for (const r of lanes) if (gitFactsFrom(r) === 'host') byPlace.set(onHost(r), [...(byPlace.get(onHost(r)) ?? []), r])
  const out = new Map<string, GitFactsNow>()
  for (const [place, recs] of byPlace) {
    const last = newest(recs.map((r) => ctx.facts.get(r.name).state?.git))
    if (!last) continue
    const { at, ...facts } = last
    out.set(place, { ...facts, asOf: at })
  }
  return out
}

/** A lane's git facts (SPEC.md 3 related rule 4: none for a lane archived or reaped, whose path is no longer its
 * own): its worktree's as read here, or for a lane on another host, what its host runner last sent, as of then. */
function gitOf(r: LaneRecord, read: Map<string, GitFactsNow | undefined>, sent: Map<string, GitFactsNow>) {
  const from = gitFactsFrom(r)
  return from === 'worktree' ? read.get(r.cwd) : from === 'host' ? sent.get(onHost(r)) : undefined
}

/** Lane rows with everything the list, show, the API and the deck print: activity with evidence, newest report,
 * verdict (stale or not), git facts for git-backed lanes that are not archived nor reaped. */
export async function laneViews(
  ctx: KernelContext,
  cache: GitFactsReader,
  pick: (r: LaneRecord) => boolean,
): Promise<LaneView[]> {
  return rowsOf(await readLanes(ctx, cache, pick))
}

function rowsOf({ chosen, views, facts, infos, ends, group }: Awaited<ReturnType<typeof readLanes>>): LaneView[] {
  return chosen.sort(inIdOrder).map((rec) => {
    const info = infos.get(rec.id)!
    const v = views.get(rec.id)!
    const g = facts.get(rec.id)
    const r = newestReport(info)
    const verdict = rowVerdict(info, group(rec.lane.run, rec.lane.key))
    const failed = laneFailure({
      activity: v.activity,
      reported: info.reports.length > 0,
      ...(v.activity === 'failed-to-start' ? { spawnError: v.evidence } : {}),
      end: ends.get(rec.id),
    })
    return {
      id: rec.id,
      name: rec.name,
      parent: rec.parent,
      run: rec.lane.run,
      key: rec.lane.key,
      role: rec.lane.role,
      iteration: rec.lane.iteration,
      cwd: rec.cwd,
      ...(rec.lane.host ? { host: rec.lane.host } : {}),
      harness: rec.harness,
      model: v.model,
      effort: rec.effort,
      cost: v.cost,
      createdAt: rec.createdAt,
      archived: Boolean(rec.archived),
      activity: v.activity,
      ...(v.reason ? { reason: v.reason } : {}),
      evidence: v.evidence,
      ...(turnEndedWithoutReport(activityOf(v), v.turn, info.reports) ? { noReport: true as const } : {}),
      ...(rec.lane.for ? { for: rec.lane.for } : {}),
      ...(failed ? { failed } : {}),
      ...(r ? { report: { seq: r.seq, status: r.status, at: r.at } } : {}),
      ...(verdict ? { verdict } : {}),
      ...(rec.lane.branch ? { branch: rec.lane.branch } : {}),
      ...(g ? { git: g } : {}),
    } satisfies LaneView
  })
}

/** Lane rows, and the chain of each run and key among them (the deck draws both from one read). */
export async function laneViewsWithChains(ctx: KernelContext, cache: GitFactsReader, pick: (r: LaneRecord) => boolean) {
  const read = await readLanes(ctx, cache, pick)
  const chains: Record<string, Record<string, string>> = {}
  for (const r of read.chosen)
    (chains[r.lane.run] ??= {})[r.lane.key] ??= chainText(read.group(r.lane.run, r.lane.key), r.lane.run, r.lane.key)
  return { views: rowsOf(read), chains }
}

export async function laneList(
  ctx: KernelContext,
  cache: GitFactsReader,
  input: PortInput<'laneList'>,
): Promise<LaneView[]> {
  decided(keysFit(input))
  const parent = input.parent !== undefined ? ctx.resolve(input.parent).id : undefined
  return laneViews(
    ctx,
    cache,
    (r) =>
      (input.run === undefined || r.lane.run === input.run) &&
      (input.key === undefined || r.lane.key === input.key) &&
      (parent === undefined || r.parent === parent),
  )
}

/** `show`: from any lane of a chain (or --run and --key), the chain text and every lane of that run and key. */
export async function laneShow(
  ctx: KernelContext,
  cache: GitFactsReader,
  input: PortInput<'laneShow'>,
): Promise<{ chain: string; lanes: LaneView[] }> {
  const form = decided(showForm(input))
  const { run, key } = 'lane' in form ? ctx.resolveLane(form.lane).lane : form
  const read = await readLanes(ctx, cache, (r) => inChain(r.lane, run, key))
  decided(chainFound(run, key, read.chosen.length))
  return { chain: chainText(read.group(run, key), run, key), lanes: rowsOf(read) }
}
