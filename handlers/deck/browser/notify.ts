import { askText } from '../../../kernel/domain/needs-you-ask.js'
import type { DeckTree } from '../../../kernel/port/port.js'
import { h } from './dom.js'
import { failure } from './failed.js'

const KEY = 'svc-deck-notify'
const KINDS_KEY = 'svc-deck-notify-kinds'

/** What a notification can be about; each is the person's choice. */
const KINDS = { needs: 'waiting on you', report: 'reports', failed: 'failures' } as const
type Kind = keyof typeof KINDS

/** A burst of events (each within this long of the one before) is raised as one notification, held at most
 * BATCH_MOST_MS after its first event. */
export const BATCH_MS = 1500
const BATCH_MOST_MS = 6000

interface Event {
  /** Names the event itself (a lane's report by its seq, a wait by when it began): raised once, ever. */
  key: string
  kind: Kind
  title: string
  body: string
  id: string
}

/** Browser notifications, opt-in: a button asks the browser's permission and remembers the choice in this browser,
 * and boxes choose which events notify: a conversation turning needs-you, a lane filing a report, a lane failing.
 * The first draw only learns what is already there; after it, each event is raised once however often the page
 * draws, and events close together make one notification. */
export class Notifier {
  private seen?: Set<string>
  private batch: Event[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private batchStart = 0
  readonly button = h('button', { id: 'notify', class: 'notify', type: 'button', onclick: () => void this.toggle() })
  readonly choices = h(
    'span',
    { class: 'notify-kinds', id: 'notify-kinds' },
    (Object.keys(KINDS) as Kind[]).map((k) =>
      h(
        'label',
        {},
        h('input', {
          type: 'checkbox',
          'data-notify-kind': k,
          checked: this.kinds().includes(k),
          onchange: (e) => this.choose(k, (e.target as HTMLInputElement).checked),
        }),
        ` ${KINDS[k]}`,
      ),
    ),
  )

  constructor() {
    this.label()
  }

  get on() {
    return (
      typeof Notification !== 'undefined' && Notification.permission === 'granted' && localStorage.getItem(KEY) === 'on'
    )
  }

  private kinds(): Kind[] {
    try {
      const got = JSON.parse(localStorage.getItem(KINDS_KEY) ?? 'null') as unknown
      if (Array.isArray(got)) return got.filter((k): k is Kind => k in KINDS)
    } catch {}
    return Object.keys(KINDS) as Kind[]
  }

  private choose(kind: Kind, on: boolean) {
    const kinds = new Set(this.kinds())
    if (on) kinds.add(kind)
    else kinds.delete(kind)
    localStorage.setItem(KINDS_KEY, JSON.stringify([...kinds]))
  }

  private label() {
    this.button.textContent = this.on ? 'Notifications on' : 'Notify me'
    this.button.dataset.on = String(this.on)
    this.choices.hidden = !this.on
  }

  private async toggle() {
    if (typeof Notification === 'undefined') return
    if (this.on) localStorage.removeItem(KEY)
    else if ((await Notification.requestPermission()) === 'granted') localStorage.setItem(KEY, 'on')
    this.label()
  }

  /** Every event the tree shows (its key names the event, not the moment it was seen). */
  private events(tree: DeckTree): Event[] {
    const out: Event[] = []
    for (const e of tree.inbox)
      out.push({
        key: `needs:${e.id}:${e.since}`,
        kind: 'needs',
        title: `#${e.id} ${e.title ?? e.name} needs you`,
        body: askText(e.ask),
        id: e.id,
      })
    for (const l of Object.values(tree.lanes)) {
      if (l.report)
        out.push({
          key: `report:${l.id}:${l.report.seq}`,
          kind: 'report',
          title: `#${l.id} ${l.run}/${l.key} ${l.role} reported ${l.report.status}`,
          body: l.verdict && l.verdict.by === l.id ? `${l.verdict.value} (${l.verdict.defects} defects)` : l.name,
          id: l.id,
        })
      const failed = failure(l)
      if (failed)
        out.push({
          key: `failed:${l.id}:${l.failed?.at}`,
          kind: 'failed',
          title: `#${l.id} ${l.run}/${l.key} ${l.role} failed`,
          body: failed,
          id: l.id,
        })
    }
    return out
  }

  /** Learn what a new tree shows; what is new (and chosen) joins the batch. */
  observe(tree: DeckTree) {
    const events = this.events(tree)
    const first = !this.seen
    this.seen ??= new Set()
    const fresh = events.filter((e) => !this.seen!.has(e.key))
    for (const e of fresh) this.seen.add(e.key)
    if (first || !this.on) return
    const kinds = this.kinds()
    const chosen = fresh.filter((e) => kinds.includes(e.kind))
    if (!chosen.length) return
    if (!this.batch.length) this.batchStart = Date.now()
    this.batch.push(...chosen)
    clearTimeout(this.timer)
    const wait = Math.min(BATCH_MS, this.batchStart + BATCH_MOST_MS - Date.now())
    this.timer = setTimeout(() => this.flush(), Math.max(0, wait))
  }

  private flush() {
    const batch = this.batch
    this.batch = []
    this.timer = undefined
    if (!batch.length) return
    if (batch.length === 1) return this.raise(batch[0].title, batch[0].body, batch[0].id)
    const count = (k: Kind) => batch.filter((e) => e.kind === k).length
    const parts = [
      count('report') && `${count('report')} reported`,
      count('needs') && `${count('needs')} waiting on you`,
      count('failed') && `${count('failed')} failed`,
    ].filter(Boolean)
    const lines = batch.slice(0, 4).map((e) => e.title)
    if (batch.length > 4) lines.push(`and ${batch.length - 4} more`)
    this.raise(`${batch.length} events: ${parts.join(', ')}`, lines.join('\n'))
  }

  private raise(title: string, body: string, id?: string) {
    const n = new Notification(title, { body, tag: id ? `svc-${id}` : 'svc-batch' })
    n.onclick = () => {
      window.focus()
      location.assign(id ? `/conv/${encodeURIComponent(id)}` : '/')
    }
  }
}
