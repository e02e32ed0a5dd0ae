import { buildTree, costPerOrchestrator, costPerRun, type TreeInput, type TreeNode } from '../domain/conv-tree.js'
import type { ConvView, DeckTree, InboxEntry, PortInput } from '../port/port.js'
import { isDriven } from '../domain/conversation.js'
import type { KernelContext } from './context.js'
import type { GitFactsReader } from './git-facts.js'
import { laneViewsWithChains } from './lane-list.js'
import { needsYouAsk } from '../domain/needs-you-ask.js'
import { runCounts } from '../domain/run-counts.js'
import { workerViews } from './worker-views.js'

/** The deck's tree: every conversation (archived lanes too), filtered by run or by parent. The shape is found from
 * the records alone; only the conversations shown are then read (their state, reports and git facts), so a filter
 * to one run costs that run, not the store. */
export async function deckTree(
  ctx: KernelContext,
  cache: GitFactsReader,
  input: PortInput<'deckTree'>,
): Promise<DeckTree> {
  const now = ctx.io.clock.now()
  const all = ctx.store.all().filter((r) => !r.archived || r.lane || r.worker)
  const byId = new Map(all.map((r) => [r.id, r]))
  let roots = buildTree(all.map((r) => ({ id: r.id, parent: r.parent, successor: r.successor, lane: r.lane })))
  if (input.parent !== undefined) {
    const id = ctx.resolve(input.parent).id
    const find = (ns: TreeNode[]): TreeNode | undefined =>
      ns.map((n) => (n.id === id ? n : find(n.children))).find(Boolean)
    roots = [find(roots)!].filter(Boolean)
  }
  if (input.run !== undefined) {
    const run = input.run
    // A successor of a lane of the run keeps using the run (SPEC.md 8, pairing and chains): it stays beside its lanes.
    const keep = (n: TreeNode, heldByRunLane: boolean): TreeNode | undefined => {
      const own = byId.get(n.id)?.lane
      if (own && own.run !== run) return undefined
      const children = n.children.map((c) => keep(c, Boolean(own))).filter((c): c is TreeNode => Boolean(c))
      return own || children.length || (n.continues && heldByRunLane) ? { ...n, children } : undefined
    }
    roots = roots.map((n) => keep(n, false)).filter((c): c is TreeNode => Boolean(c))
  }
  const shown = new Set<string>()
  const visit = (n: TreeNode) => {
    shown.add(n.id)
    n.children.forEach(visit)
  }
  roots.forEach(visit)
  const recs = all.filter((r) => shown.has(r.id))
  const views = Object.fromEntries(recs.map((r) => [r.id, ctx.view(r, now)]))
  const read = await laneViewsWithChains(ctx, cache, (r) => shown.has(r.id))
  const lanes = Object.fromEntries(read.views.map((l) => [l.id, l]))
  const workers = Object.fromEntries((await workerViews(ctx, (r) => shown.has(r.id))).map((w) => [w.id, w]))
  const inputs: TreeInput[] = recs.map((r) => ({
    id: r.id,
    parent: r.parent,
    successor: r.successor,
    lane: r.lane,
    cost: views[r.id].cost,
  }))
  return {
    roots,
    conversations: views,
    lanes,
    workers,
    costPerRun: costPerRun(inputs),
    costPerOrchestrator: costPerOrchestrator(inputs, roots),
    // Every run, whatever the filter: the deck offers them all to choose from.
    runs: [...new Set(all.flatMap((r) => (r.lane ? [r.lane.run] : [])))].sort(),
    counts: runCounts(Object.values(lanes)),
    chains: read.chains,
    // Whatever the filter (the page says how many wait in other runs): of the conversations not shown, only those a
    // runner still drives can be waiting on a person.
    inbox: inboxOf([
      ...Object.values(views),
      ...ctx.store
        .all()
        .filter((r) => !shown.has(r.id) && isDriven(r))
        .map((r) => ctx.view(r, now)),
    ]),
  }
}

/** Every conversation that waits on a person, the longest wait first, with what it asks. */
function inboxOf(views: ConvView[]): InboxEntry[] {
  return views
    .filter((v) => v.activity === 'needs-you')
    .map((v) => {
      const l = v.lane
      return {
        id: v.id,
        name: v.name,
        ...(v.title ? { title: v.title } : {}),
        ...(v.project ? { project: v.project } : {}),
        ...(l ? { lane: { run: l.run, key: l.key, role: l.role, iteration: l.iteration } } : {}),
        since: v.pending?.at ?? v.evidence.at,
        ask: needsYouAsk(v.pending, v.reason),
      }
    })
    .sort((a, b) => a.since - b.since)
}
