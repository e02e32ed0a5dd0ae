import { askText } from '../../../kernel/domain/needs-you-ask.js'
import type { DeckTree } from '../../../kernel/port/port.js'
import { h } from './dom.js'

const KEY = 'svc-deck-notify'

/** Browser notifications, opt-in: a button asks the browser's permission and remembers the choice in this browser.
 * Once on, a conversation turning needs-you and a lane filing a report each raise one notification; the first draw
 * only learns what is already there. */
export class Notifier {
  private seen?: { needs: Set<string>; reports: Map<string, number> }
  readonly button = h('button', { id: 'notify', class: 'notify', type: 'button', onclick: () => void this.toggle() })

  constructor() {
    this.label()
  }

  get on() {
    return (
      typeof Notification !== 'undefined' && Notification.permission === 'granted' && localStorage.getItem(KEY) === 'on'
    )
  }

  private label() {
    this.button.textContent = this.on ? 'Notifications on' : 'Notify me'
    this.button.dataset.on = String(this.on)
  }

  private async toggle() {
    if (typeof Notification === 'undefined') return
    if (this.on) localStorage.removeItem(KEY)
    else if ((await Notification.requestPermission()) === 'granted') localStorage.setItem(KEY, 'on')
    this.label()
  }

  /** Compare a new tree with the last one and notify what is new. */
  observe(tree: DeckTree) {
    const needs = new Set(tree.inbox.map((e) => e.id))
    const reports = new Map(Object.values(tree.lanes).flatMap((l) => (l.report ? [[l.id, l.report.seq] as const] : [])))
    const before = this.seen
    this.seen = { needs, reports }
    if (!before || !this.on) return
    for (const e of tree.inbox)
      if (!before.needs.has(e.id)) this.raise(`#${e.id} ${e.name} needs you`, askText(e.ask), e.id)
    for (const [id, seq] of reports)
      if ((before.reports.get(id) ?? 0) < seq) {
        const l = tree.lanes[id]
        this.raise(
          `#${id} ${l.run}/${l.key} ${l.role} reported ${l.report!.status}`,
          l.verdict && l.verdict.by === id ? `${l.verdict.value} (${l.verdict.defects} defects)` : l.name,
          id,
        )
      }
  }

  private raise(title: string, body: string, id: string) {
    const n = new Notification(title, { body, tag: `svc-${id}` })
    n.onclick = () => {
      window.focus()
      location.assign(`/conv/${encodeURIComponent(id)}`)
    }
  }
}
