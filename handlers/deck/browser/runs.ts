import { usdText } from '../../../kernel/domain/format.js'
import { inIdOrder } from '../../../kernel/domain/newest.js'
import type { RunCounts } from '../../../kernel/domain/run-counts.js'
import type { DeckTree, LaneView } from '../../../kernel/port/port.js'
import { h } from './dom.js'
import { failure } from './failed.js'
import { convRow } from './rows.js'
import { haystack } from './agents.js'

type Node = DeckTree['roots'][number]

const COUNTED = ['working', 'needs-you', 'idle', 'host-lost', 'failed', 'reported', 'stale'] as const

/** A run's counts, as its header shows them. */
export const countsOf = (counts: RunCounts) =>
  h(
    'span',
    { class: 'counts' },
    COUNTED.map((k) =>
      h('span', { class: `count count-${k}${counts[k] ? '' : ' zero'}`, 'data-count': k }, `${counts[k]} ${k}`),
    ),
  )

/** The ids of every row the (filtered) tree shows. */
function shown(roots: Node[], out = new Set<string>()): Set<string> {
  for (const n of roots) {
    out.add(n.id)
    shown(n.children, out)
  }
  return out
}

/** A lane that is over and needs nothing more: it ended (or was archived) without failing. */
const finished = (l: LaneView) => l.activity === 'stopped' && !failure(l)

/** What the Command Deck shows of its lanes: the rows matching `search` (see haystack()), and with `hideFinished`,
 * only lanes that are live or failed. */
export interface Triage {
  search: string
  hideFinished: boolean
}

/** The Command Deck's runs, active ones first and runs whose every lane is archived after them: for each, its counts
 * and cost, then each lane key as its chain and its lanes. */
export function runSections(tree: DeckTree, now: number, triage: Triage) {
  const ids = shown(tree.roots)
  const q = triage.search.trim().toLowerCase()
  const byRun = new Map<string, Map<string, LaneView[]>>()
  let hidden = 0
  for (const l of Object.values(tree.lanes)) {
    if (!ids.has(l.id)) continue
    if ((triage.hideFinished && finished(l)) || (q && !haystack(tree, l.id).includes(q))) {
      hidden++
      continue
    }
    const keys = byRun.get(l.run) ?? byRun.set(l.run, new Map()).get(l.run)!
    ;(keys.get(l.key) ?? keys.set(l.key, []).get(l.key)!).push(l)
  }
  const archived = (run: string) => Object.values(tree.lanes).every((l) => l.run !== run || l.archived)
  const runs = [...byRun.keys()].sort((a, b) => Number(archived(a)) - Number(archived(b)) || a.localeCompare(b))
  const note = hidden
    ? h(
        'p',
        { class: 'muted hidden-note', 'data-hidden': hidden },
        `${hidden} lane${hidden === 1 ? '' : 's'} not shown (` +
          `${[q ? 'search' : '', triage.hideFinished ? 'hide finished' : ''].filter(Boolean).join(', ')})`,
      )
    : null
  if (!runs.length) return [h('p', { class: 'muted empty' }, q || hidden ? 'no lane matches' : 'no lanes'), note]
  const sections = runs.map((run) => {
    const keys = byRun.get(run)!
    return h(
      'section',
      { class: `run${archived(run) ? ' archived-run' : ''}`, 'data-run': run, 'data-archived': String(archived(run)) },
      h(
        'h2',
        {},
        h('span', { class: 'run-name' }, `run ${run}`),
        countsOf(tree.counts[run]),
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
  return [note, ...sections]
}
