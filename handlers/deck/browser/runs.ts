import { usdText } from '../../../kernel/domain/format.js'
import { inIdOrder } from '../../../kernel/domain/newest.js'
import type { RunCounts } from '../../../kernel/domain/run-counts.js'
import type { DeckTree, LaneView } from '../../../kernel/port/port.js'
import { h } from './dom.js'
import { failure } from './failed.js'
import { convRow } from './rows.js'

type Node = DeckTree['roots'][number]

const COUNTED = ['working', 'needs-you', 'idle', 'failed', 'reported', 'stale'] as const

/** A run's counts, as its header shows them: the kernel's, and the lanes that failed (see failure()). */
export const countsOf = (tree: DeckTree, run: string) => {
  const counts: Record<(typeof COUNTED)[number], number> = {
    ...(tree.counts[run] as RunCounts),
    failed: Object.values(tree.lanes).filter((l) => l.run === run && failure(l)).length,
  }
  return h(
    'span',
    { class: 'counts' },
    COUNTED.map((k) =>
      h('span', { class: `count count-${k}${counts[k] ? '' : ' zero'}`, 'data-count': k }, `${counts[k]} ${k}`),
    ),
  )
}

/** The ids of every row the (filtered) tree shows. */
function shown(roots: Node[], out = new Set<string>()): Set<string> {
  for (const n of roots) {
    out.add(n.id)
    shown(n.children, out)
  }
  return out
}

/** The Command Deck's runs: for each, its counts and cost, then each lane key as its chain and its lanes. */
export function runSections(tree: DeckTree, now: number) {
  const ids = shown(tree.roots)
  const byRun = new Map<string, Map<string, LaneView[]>>()
  for (const l of Object.values(tree.lanes)) {
    if (!ids.has(l.id)) continue
    const keys = byRun.get(l.run) ?? byRun.set(l.run, new Map()).get(l.run)!
    ;(keys.get(l.key) ?? keys.set(l.key, []).get(l.key)!).push(l)
  }
  const runs = [...byRun.keys()].sort()
  if (!runs.length) return [h('p', { class: 'muted empty' }, 'no lanes')]
  return runs.map((run) => {
    const keys = byRun.get(run)!
    return h(
      'section',
      { class: 'run', 'data-run': run },
      h(
        'h2',
        {},
        h('span', { class: 'run-name' }, `run ${run}`),
        countsOf(tree, run),
        h('span', { class: 'run-cost', 'data-run-cost': run }, `run ${run}: ${usdText(tree.costPerRun[run] ?? 0)}`),
      ),
      [...keys.keys()].sort().map((key) =>
        h(
          'div',
          { class: 'key', 'data-key': key },
          h(
            'div',
            { class: 'chain', 'data-chain': `${run}/${key}` },
            h('span', { class: 'key-name' }, key),
            ' ',
            tree.chains[run]?.[key] || '—',
          ),
          h(
            'ul',
            { class: 'lanes' },
            keys
              .get(key)!
              .sort(inIdOrder)
              .map((l) => h('li', { 'data-id': l.id, 'data-kind': 'lane' }, convRow(tree, l.id, now))),
          ),
        ),
      ),
    )
  })
}
