import { isJudgeRole } from './keys.js'
import { inIdOrder } from './newest.js'

/** The shape the deck shows: every conversation nested under the one that launched it; a critic or verifier under
 * the builder row it judges; a successor under its source, beside the source's lanes, marked `continues ← #id`. */
export interface TreeInput {
  id: string
  parent?: string
  successor?: 'handoff' | 'fork'
  lane?: { role: string; run: string; for?: { id: string } }
  cost?: { usd: number }
}

export interface TreeNode {
  id: string
  /** For a successor: the conversation it continues. */
  continues?: string
  children: TreeNode[]
}

/** SPEC.md 1 and 8 (Pairing and chains, bullets 3 and 4): the rows as a tree. A row goes under its holder: the builder
 * it judges (a critic or verifier whose builder is shown), else the conversation that launched it (when shown). A
 * row whose holders loop back goes to the top level, so that no row is hidden. Every level in id order. */
export function buildTree(convs: TreeInput[]): TreeNode[] {
  const byId = new Map(convs.map((c) => [c.id, c]))
  const nodes = new Map<string, TreeNode>(
    convs.map((c) => [c.id, { id: c.id, ...(c.successor && c.parent ? { continues: c.parent } : {}), children: [] }]),
  )
  const roots: TreeNode[] = []
  const holder = (c: TreeInput): string | undefined => {
    const judged = c.lane?.for?.id
    if (isJudgeRole(c.lane?.role) && judged && byId.has(judged)) return judged
    return c.parent && byId.has(c.parent) ? c.parent : undefined
  }
  for (const c of convs) {
    const h = holder(c)
    // A chain of holders that loops back would hide rows: such a row is shown at the top level instead.
    let cursor = h
    const seen = new Set([c.id])
    while (cursor && !seen.has(cursor)) {
      seen.add(cursor)
      cursor = holder(byId.get(cursor)!)
    }
    if (h && !cursor) nodes.get(h)!.children.push(nodes.get(c.id)!)
    else roots.push(nodes.get(c.id)!)
  }
  const sort = (list: TreeNode[]) => {
    list.sort(inIdOrder)
    list.forEach((n) => sort(n.children))
  }
  sort(roots)
  return roots
}

/** Cost summed per run. */
export function costPerRun(convs: TreeInput[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const c of convs) if (c.lane) out[c.lane.run] = (out[c.lane.run] ?? 0) + (c.cost?.usd ?? 0)
  return out
}

/** Cost summed per orchestrator: its own, its successors', and that of every conversation nested below them. */
export function costPerOrchestrator(convs: TreeInput[], tree: TreeNode[]): Record<string, number> {
  const byId = new Map(convs.map((c) => [c.id, c]))
  const total = (n: TreeNode): number =>
    (byId.get(n.id)?.cost?.usd ?? 0) + n.children.reduce((s, ch) => s + total(ch), 0)
  const out: Record<string, number> = {}
  const visit = (n: TreeNode) => {
    if (byId.get(n.id)?.lane?.role === 'orchestrator') out[n.id] = total(n)
    n.children.forEach(visit)
  }
  tree.forEach(visit)
  return out
}
