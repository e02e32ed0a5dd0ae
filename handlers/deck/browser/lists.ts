import { usdText } from '../../../kernel/domain/format.js'
import type { DeckTree } from '../../../kernel/port/port.js'
import { agentsTree } from './agents.js'
import { api } from './api.js'
import { Inbox } from './inbox.js'
import { fillLaunchers } from './start.js'
import { fill, h, must } from './dom.js'
import { restoreCurrent } from './keys.js'
import { live, type Change } from './live.js'
import type { Notifier } from './notify.js'
import { countsOf, runSections } from './runs.js'
import { convRow } from './rows.js'
import { runCounts } from '../../../kernel/domain/run-counts.js'

const HIDE_FINISHED = 'svc-deck-hide-finished'

/** More changed lanes than this at once are drawn by the full redraw. */
const PATCH_MOST = 8

/** The run and parent filters, from the address; changing one reloads with it. */
function filters(tree: DeckTree, params: URLSearchParams) {
  const run = must<HTMLSelectElement>('#run')
  if (run.options.length <= 1) for (const r of tree.runs) run.add(new Option(r, r, false, r === params.get('run')))
  const parent = must<HTMLInputElement>('#parent')
  if (document.activeElement !== parent) parent.value = params.get('parent') ?? ''
}

function onFilter(id: string) {
  must<HTMLInputElement>(`#${id}`).addEventListener('change', (e) => {
    const p = new URLSearchParams(location.search)
    const v = (e.target as HTMLInputElement).value
    if (v) p.set(id, v)
    else p.delete(id)
    location.search = p.toString()
  })
}

/** The Command Deck (inbox and runs, searchable, finished lanes hideable) and the Agents page (every conversation as
 * a tree, searchable). */
export function listPage(page: 'deck' | 'agents', notifier: Notifier) {
  const params = new URLSearchParams(location.search)
  const q = new URLSearchParams()
  for (const k of ['run', 'parent']) if (params.get(k)) q.set(k, params.get(k)!)
  let last: DeckTree | undefined
  const inbox = page === 'deck' ? new Inbox(must('#inbox'), must('#inbox-count')) : undefined
  const search = document.querySelector<HTMLInputElement>('#search')
  const render = () => {
    const tree = last!
    const now = Date.now()
    if (page === 'deck') {
      inbox!.draw(tree.inbox, params.get('run') ?? undefined)
      fillLaunchers(tree)
      fill(
        must('#runs'),
        runSections(tree, now, { search: search?.value ?? '', hideFinished: hideFinished?.checked ?? false }),
      )
    } else {
      // The deck shows each run's cost in its header; the tree, in one line above it.
      fill(must('#tree'), agentsTree(tree, now, search?.value ?? ''))
      fill(
        must('#costs'),
        Object.entries(tree.costPerRun).map(([r, c], i) => [i ? ' · ' : '', h('span', {}, `run ${r}: ${usdText(c)}`)]),
      )
    }
    for (const row of document.querySelectorAll<HTMLElement>('li[data-id] > .row'))
      row.dataset.nav = `row-${row.parentElement!.dataset.id}`
    restoreCurrent()
    document.body.dataset.drawn = String(Date.now())
  }
  search?.addEventListener('input', () => last && render())
  // Hide finished is this browser's choice, kept across visits.
  const hideFinished = document.querySelector<HTMLInputElement>('#hide-finished')
  if (hideFinished) {
    hideFinished.checked = localStorage.getItem(HIDE_FINISHED) === 'on'
    hideFinished.addEventListener('change', () => {
      if (hideFinished.checked) localStorage.setItem(HIDE_FINISHED, 'on')
      else localStorage.removeItem(HIDE_FINISHED)
      if (last) render()
    })
  }
  onFilter('run')
  onFilter('parent')
  must('#notify-slot').replaceWith(notifier.button, notifier.choices)
  /** A few lanes changed: their rows and their runs' counts are drawn in place at once (the full tree follows). */
  const patch = async (changes: Change[]) => {
    const tree = last
    if (!tree) return false
    const byName = new Map(Object.values(tree.lanes).map((l) => [l.name, l.id]))
    const ids = [...new Set(changes.map((c) => byName.get(c.name)))]
    if (!ids.length || ids.length > PATCH_MOST || ids.includes(undefined)) return false
    const now = Date.now()
    for (const lane of await Promise.all(ids.map((id) => api.lane(id!)))) {
      tree.lanes[lane.id] = lane
      const row = document.querySelector<HTMLElement>(`li[data-id="${lane.id}"] > .row`)
      if (!row) continue
      const fresh = convRow(tree, lane.id, now)
      fresh.dataset.nav = row.dataset.nav
      fresh.className = row.className
      row.replaceWith(fresh)
    }
    tree.counts = runCounts(Object.values(tree.lanes))
    for (const run of new Set(ids.map((id) => tree.lanes[id!].run)))
      document.querySelector(`[data-run="${CSS.escape(run)}"] .counts`)?.replaceWith(countsOf(tree.counts[run]))
    notifier.observe(tree)
    return true
  }
  live(async () => {
    last = await api.tree(q)
    performance.mark('svc:fetched')
    filters(last, params)
    notifier.observe(last)
    render()
  }, patch)
}
