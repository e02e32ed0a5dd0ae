import { age } from '../../../kernel/domain/format.js'
import type { InboxEntry } from '../../../kernel/port/port.js'
import { askPanel } from './ask.js'
import { fill, h } from './dom.js'
import { restoreCurrent } from './keys.js'
import { say } from './live.js'

/** An entry the page still shows in its place though it waits no more (answered here, or elsewhere). */
interface Held {
  entry: InboxEntry
  said: string
}

const askSig = (e: InboxEntry) => JSON.stringify(e.ask)

/** The needs-you inbox: each waiting conversation, what it asks, and the controls to answer it right there.
 *
 * It never moves under the pointer: while the pointer is over it, an entry that was answered (or stopped waiting)
 * stays in its place as a line saying so, a conversation that asks again shows that only once the pointer has left,
 * and new entries come in below. So a second click never lands on the next agent's button. With a run filter it
 * shows that run's entries and says how many wait elsewhere. */
export class Inbox {
  private shown: string[] = []
  /** What each shown entry last said, so that one which stops waiting under the pointer keeps its place even when
   * the kernel says so before this page's own answer returns. */
  private lastShown = new Map<string, InboxEntry>()
  private held = new Map<string, Held>()
  /** Entries answered from this page, by the ask they answered: until the kernel says otherwise, they are done. */
  private answered = new Map<string, { ask: string; said: string }>()
  private last: { entries: InboxEntry[]; run?: string } = { entries: [] }
  private drawnSig = ''
  /** Whether the pointer is over the inbox (followed by its events: hover state lags behind a redraw). */
  private pointerIn = false

  constructor(
    private readonly el: HTMLElement,
    private readonly count: HTMLElement,
  ) {
    el.addEventListener('pointermove', () => (this.pointerIn = true))
    el.addEventListener('pointerenter', () => (this.pointerIn = true))
    el.addEventListener('pointerleave', () => {
      this.pointerIn = false
      this.draw(this.last.entries, this.last.run)
    })
  }

  draw(all: InboxEntry[], run?: string) {
    this.last = { entries: all, run }
    const entries = run ? all.filter((e) => e.lane?.run === run) : all
    const elsewhere = all.length - entries.length
    const under = this.pointerIn
    const byId = new Map(entries.map((e) => [e.id, e]))
    for (const [id, a] of this.answered) {
      const e = byId.get(id)
      if (!under && (!e || askSig(e) !== a.ask)) this.answered.delete(id)
    }
    let ids = entries.map((e) => e.id)
    if (under) ids = [...this.shown, ...ids.filter((id) => !this.shown.includes(id))]
    else this.held.clear()
    const rows = ids.map((id) => {
      const e = byId.get(id)
      const done = this.answered.get(id)
      if (e && !done) return { live: e }
      const held = this.held.get(id)
      const said = done?.said ?? held?.said ?? 'no longer waiting'
      const entry = e ?? held?.entry ?? (under ? this.lastShown.get(id) : undefined)
      return entry ? { held: { entry, said } } : undefined
    })
    const model = rows.filter((r) => r !== undefined)
    for (const r of model) if (r.held) this.held.set(r.held.entry.id, r.held)
    this.lastShown = new Map(model.map((r) => [(r.live ?? r.held!.entry).id, r.live ?? r.held!.entry]))
    this.shown = [...this.lastShown.keys()]
    this.count.textContent = String(entries.length)
    this.count.dataset.zero = String(!entries.length)
    const sig = JSON.stringify([model, elsewhere])
    if (sig === this.drawnSig) return
    this.drawnSig = sig
    const now = Date.now()
    // Under the pointer no entry shrinks: what follows it stays where it was.
    const heights = new Map<string, number>()
    if (under)
      for (const li of this.el.querySelectorAll<HTMLElement>('li[data-nav]'))
        heights.set(li.dataset.nav!, li.getBoundingClientRect().height)
    fill(
      this.el,
      model.length
        ? h(
            'ul',
            { class: 'inbox-list' },
            model.map((r) => (r.live ? this.entry(r.live, now) : this.heldEntry(r.held!))),
          )
        : h('p', { class: 'muted empty' }, 'nobody is waiting on you'),
      elsewhere
        ? h(
            'p',
            { class: 'muted elsewhere', 'data-elsewhere': elsewhere },
            `${elsewhere} more waiting in other runs `,
            h('a', { href: '/' }, 'show all runs'),
          )
        : null,
    )
    for (const li of this.el.querySelectorAll<HTMLElement>('li[data-nav]')) {
      const height = heights.get(li.dataset.nav!)
      if (height) li.style.minHeight = `${height}px`
    }
    restoreCurrent()
  }

  private head(e: InboxEntry, now: number) {
    return h(
      'div',
      { class: 'inbox-head' },
      h('a', { href: `/conv/${e.id}` }, `#${e.id} ${e.title ?? e.name}`),
      e.project ? h('span', { class: 'chip project', 'data-project': e.project }, e.project) : null,
      e.lane
        ? h('span', { class: 'chip role' }, `${e.lane.run}/${e.lane.key} ${e.lane.role} i${e.lane.iteration}`)
        : null,
      e.title ? h('span', { class: 'muted' }, e.name) : null,
      h('span', { class: 'muted' }, `waiting ${age(e.since, now)}`),
    )
  }

  private entry(e: InboxEntry, now: number) {
    const ask = askSig(e)
    return h(
      'li',
      { class: 'inbox-entry', 'data-inbox': e.id, 'data-nav': `inbox-${e.id}` },
      this.head(e, now),
      askPanel(
        e,
        e.ask,
        (said, answered) => {
          say(said)
          if (answered) this.answered.set(e.id, { ask, said })
          else if (!this.answered.delete(e.id)) return
          this.draw(this.last.entries, this.last.run)
        },
        false,
        // From the moment it is sent the entry is answered: what the kernel says next (it waits no more, it asks
        // again) must not move anything under the pointer before the reply comes back.
        (said) => {
          this.answered.set(e.id, { ask, said })
          this.draw(this.last.entries, this.last.run)
        },
      ),
    )
  }

  private heldEntry(held: Held) {
    return h(
      'li',
      { class: 'inbox-entry held', 'data-held': held.entry.id, 'data-nav': `inbox-${held.entry.id}` },
      this.head(held.entry, Date.now()),
      h('p', { class: 'muted said' }, held.said),
    )
  }
}
