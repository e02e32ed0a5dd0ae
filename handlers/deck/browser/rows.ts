import { LIST_COLUMNS, activityShown, laneCells } from '../../../kernel/domain/list-show.js'
import { age, costText, usdText } from '../../../kernel/domain/format.js'
import type { ConvView, DeckTree, LaneView, WorkerView } from '../../../kernel/port/port.js'
import { h } from './dom.js'
import { failure } from './failed.js'

/** The parts of a conversation's row, the same on the Command Deck, the Agents page and a conversation's page. */

/** A lane's cells by list column, made by the rules the CLI's list uses. */
export const cellsOf = (lane: LaneView) => {
  const v = laneCells(lane)
  return Object.fromEntries(LIST_COLUMNS.map((c, i) => [c, v[i]])) as Record<(typeof LIST_COLUMNS)[number], string>
}

export function activityChip(view: ConvView | LaneView, now: number) {
  const e = view.evidence
  const failed = failure(view)
  const state = activityShown(view)
  const ev = `${e.source}${e.detail ? `: ${e.detail}` : ''}, ${age(e.at, now)} ago`
  return [
    h(
      'span',
      {
        class: `chip activity-${failed ? 'failed' : view.archived ? 'archived' : view.activity}`,
        'data-activity': view.activity,
        'data-failed': failed,
        title: ev,
      },
      failed ? `failed (${failed})` : state,
    ),
    h('span', { class: 'muted evidence' }, ev),
  ]
}

export function verdictBadge(lane: LaneView, link: boolean) {
  const v = lane.verdict
  if (!v) return null
  const attrs = {
    class: `badge verdict-${v.value}${v.stale ? ' stale' : ''}`,
    title: v.stale ? 'stale: the branch moved past the judged commit' : `judged ${(v.judged ?? '').slice(0, 7)}`,
  }
  const label = [cellsOf(lane).VERDICT, v.stale ? h('span', { class: 'stale-mark', 'data-stale': '' }, ' stale') : null]
  return link
    ? h('a', { ...attrs, 'data-verdict-link': v.by, href: `/conv/${v.by}` }, label)
    : h('span', { ...attrs, 'data-verdict': v.value }, label)
}

export function gitCell(l: LaneView) {
  const { 'BRANCH@SHA': at, AHEAD: ahead, DIRTY: dirty } = cellsOf(l)
  if (at === '-') return null
  return h(
    'span',
    { class: 'muted git', 'data-git': at },
    at + (ahead !== '-' ? ` ahead ${ahead}` : '') + (dirty !== '-' ? ` dirty ${dirty}` : ''),
  )
}

export const reportCell = (l: Pick<LaneView | WorkerView, 'report'>) =>
  h(
    'span',
    { class: `report report-${l.report?.status ?? 'none'}`, 'data-report': l.report?.status ?? '' },
    l.report ? `report: ${l.report.status}` : 'no report',
  )

/** A worker's facts on its row: its iteration and its issue (a link when the issue has a web address). */
function workerCells(w: WorkerView) {
  const issue = /^https?:/.test(w.url ?? '')
    ? h('a', { class: 'issue', 'data-issue': w.issue, href: w.url! }, w.issue)
    : h('span', { class: 'issue', 'data-issue': w.issue }, w.issue)
  return [h('span', { class: 'chip role', 'data-role': 'worker' }, `worker i${w.iteration}`), issue]
}

/** One conversation's row: id, name, lane or worker facts, activity with evidence, report, git, verdict, model,
 * cost. */
export function convRow(tree: DeckTree, id: string, now: number, continues?: string) {
  const c = tree.conversations[id]
  const l = tree.lanes[id]
  const w = tree.workers?.[id]
  const orch = tree.costPerOrchestrator[id]
  return h(
    'div',
    { class: 'row', tabindex: -1 },
    h('span', { class: 'id' }, `#${id}`),
    h('span', { class: 'name' }, h('a', { href: `/conv/${id}` }, c.title ? `${c.name} · ${c.title}` : c.name)),
    continues ? h('span', { class: 'continues', 'data-continues': continues }, `continues ← #${continues}`) : null,
    l
      ? [
          h('span', { class: 'chip role', 'data-role': l.role }, `${l.role} i${l.iteration}`),
          h('span', { class: 'muted' }, `${l.run}/${l.key}`),
          // A lane on another host says which (issue 27), as the list's HOST column does.
          l.host ? h('span', { class: 'chip host', 'data-host': l.host }, `on ${l.host}`) : null,
        ]
      : w
        ? workerCells(w)
        : h('span', { class: 'chip' }, c.kind),
    activityChip(l ?? c, now),
    l ? [reportCell(l), gitCell(l), verdictBadge(l, l.role === 'builder')] : w ? reportCell(w) : null,
    c.model ? h('span', { class: 'muted' }, c.model) : null,
    c.cost ? h('span', { class: 'muted cost' }, costText(c.cost)) : null,
    orch !== undefined
      ? h(
          'span',
          { class: 'muted orch-cost', 'data-orch-cost': orch.toFixed(2) },
          `orchestrator total ${usdText(orch)}`,
        )
      : null,
  )
}
