import { connected, onReturn, unreachable } from './connection.js'
import { fill, must } from './dom.js'

/** What the kernel says changed: the conversation's name and what of it. */
export interface Change {
  name: string
  what: string
}

/** How long a full redraw waits after a change `patch` drew by itself: a burst of reports costs one. */
const SETTLE_MS = 1000

/** Draw now, and again whenever the kernel reports a change over server-sent events. A change starts a draw at
 * once, unless `patch` drew it in place (then the full draw follows when the changes settle); changes that arrive
 * while a draw runs are drawn together by one more right after it. A (re)connected stream may have missed changes,
 * so `ready` draws too. The marks `svc:change` and `svc:drawn` (User Timing) let a person, or the bench, see what an
 * update costs. */
export function live(draw: () => Promise<void>, patch?: (changes: Change[]) => Promise<boolean>) {
  let settle: ReturnType<typeof setTimeout> | undefined
  let running = false
  let again = false
  const redraw = async () => {
    if (running) {
      again = true
      return
    }
    running = true
    do {
      again = false
      try {
        await draw()
        performance.mark('svc:drawn')
      } catch (e) {
        say((e as Error).message)
      }
    } while (again)
    running = false
  }
  let es: EventSource | undefined
  // A kernel that hangs keeps its connection open and says nothing: a stream silent for two pings and more is
  // treated as broken (the page then asks by itself until the kernel answers).
  let heard = Date.now()
  let silentMs = Infinity
  setInterval(() => {
    if (es && es.readyState === EventSource.OPEN && Date.now() - heard > silentMs) {
      es.close()
      document.body.dataset.live = 'no'
      unreachable()
    }
  }, 5000)
  const open = () => {
    es?.close()
    es = new EventSource('/api/events')
    es.addEventListener('ping', () => (heard = Date.now()))
    es.addEventListener('change', async (e) => {
      heard = Date.now()
      performance.mark('svc:change')
      const drawn = patch
        ? await patch(JSON.parse((e as MessageEvent<string>).data) as Change[]).catch(() => false)
        : false
      clearTimeout(settle)
      if (drawn) settle = setTimeout(() => void redraw(), SETTLE_MS)
      else void redraw()
    })
    es.addEventListener('ready', (e) => {
      heard = Date.now()
      const pingMs = Number((JSON.parse((e as MessageEvent<string>).data) as { pingMs?: number }).pingMs)
      silentMs = pingMs > 0 ? 2 * pingMs + 5000 : Infinity
      connected()
      document.body.dataset.live = 'yes'
      void redraw()
    })
    es.addEventListener('error', () => {
      document.body.dataset.live = 'no'
      unreachable()
    })
  }
  onReturn(open)
  open()
  void redraw()
}

/** Say what an action did, or why it was refused, in the header's status line. */
export const say = (msg: string) => fill(must('#status'), msg)
