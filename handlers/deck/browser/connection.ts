import { fill, h, must } from './dom.js'

/** The page's link to the kernel, shown in the header and, when it is not live, in a banner over the page: `live`
 * while the event stream is open; `reconnecting` when it broke (the page keeps trying by itself); `lost` when the
 * kernel has not answered for a while (still trying) or refused the session (nothing more the page can do). Each
 * state says in words what a person can run. */
export type ConnState = 'live' | 'reconnecting' | 'lost'

/** How often a broken page asks whether the kernel answers again, and after how many unanswered asks it is lost. */
export const PROBE_MS = 1000
const LOST_AFTER = 3

const NEW_LINK = 'run svc deck in a terminal and open the link it prints'

let state: ConnState | undefined
/** When the kernel last stopped answering. */
let downSince = 0
let failures = 0
let sessionLost = false
let probing: ReturnType<typeof setInterval> | undefined
let reopen: (() => void) | undefined

/** What to do once the kernel answers this page again (open a new event stream). */
export const onReturn = (f: () => void) => (reopen = f)

/** While the page is not live it asks, every PROBE_MS, whether the kernel answers it again: a stream the browser gave
 * up on (a refused session, a kernel gone for long) never comes back on its own, and a new link opened in another
 * tab gives this one its session back. */
function watchForReturn() {
  probing ??= setInterval(async () => {
    if (await probe()) reopen?.()
  }, PROBE_MS)
}

function show(next: ConnState, words: string) {
  state = next
  document.body.dataset.conn = next
  const chip = must('#conn')
  chip.dataset.conn = next
  fill(chip, next)
  chip.title = words
  const banner = must('#conn-banner')
  banner.hidden = next === 'live'
  banner.dataset.conn = next
  fill(banner, h('strong', {}, next === 'lost' ? 'Connection lost' : 'Reconnecting'), ' ', words)
}

export const connState = () => state

/** The event stream is open: whatever was wrong is over. */
export function connected() {
  clearInterval(probing)
  probing = undefined
  failures = 0
  sessionLost = false
  show('live', 'the page follows the kernel as it changes')
}

/** A request or the stream failed to reach the kernel. */
export function unreachable() {
  if (sessionLost) return
  if (!failures++) downSince = Date.now()
  const host = location.host
  if (failures < LOST_AFTER)
    show('reconnecting', `the kernel at ${host} stopped answering; this page keeps trying by itself.`)
  else
    show(
      'lost',
      `the kernel at ${host} has not answered for ${Math.round((Date.now() - downSince) / 1000) || 1}s: what this ` +
        `page shows may be out of date. Start it with svc kernel start; this page reconnects by itself once it ` +
        `answers (if it comes back elsewhere, ${NEW_LINK}).`,
    )
}

/** The kernel answered, but not to this page's session: only a new link lets this browser in again. */
export function unauthorized(message: string) {
  sessionLost = true
  watchForReturn()
  show('lost', `${message.replace(/; run svc deck for a new link$/, '')}: ${NEW_LINK}.`)
}

/** Ask the kernel whether it answers this page (and its session): true when it does. */
async function probe(): Promise<boolean> {
  let res: Response
  try {
    res = await fetch('/api/session', { credentials: 'same-origin', cache: 'no-store' })
  } catch {
    unreachable()
    return false
  }
  if (res.status === 401) {
    const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } }
    unauthorized(body.error?.message ?? 'the deck session has expired or was revoked')
    return false
  }
  if (!res.ok) {
    unreachable()
    return false
  }
  return true
}
