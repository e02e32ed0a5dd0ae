import type { DeckTree } from '../../../kernel/port/port.js'
import { h, type Child } from './dom.js'
import { convRow } from './rows.js'

type Node = DeckTree['roots'][number]

/** The words a row is found by: id, name, title, lane, model, activity. */
export function haystack(tree: DeckTree, id: string): string {
  const c = tree.conversations[id]
  const l = tree.lanes[id]
  const w = tree.workers?.[id]
  return [`#${id}`, c.name, c.title, c.model, c.activity, l && `${l.run}/${l.key} ${l.role}`, w && `worker ${w.issue}`]
    .filter(Boolean)
    .join(' ')
    .toLowerCase()
}

/** Every conversation as SPEC.md section 8 nests it; with a search, the rows that match and the rows above them. */
export function agentsTree(tree: DeckTree, now: number, search: string): Child {
  const q = search.trim().toLowerCase()
  const item = (n: Node): HTMLLIElement | null => {
    const kids = n.children.map(item).filter((k): k is HTMLLIElement => k !== null)
    if (q && !kids.length && !haystack(tree, n.id).includes(q)) return null
    const c = tree.conversations[n.id]
    return h(
      'li',
      { 'data-id': n.id, 'data-kind': c.kind },
      convRow(tree, n.id, now, n.continues),
      kids.length ? h('ul', {}, kids) : null,
    )
  }
  const items = tree.roots.map(item).filter(Boolean)
  return items.length ? items : h('li', { class: 'muted empty' }, q ? 'no conversation matches' : 'no conversations')
}
