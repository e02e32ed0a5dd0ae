import { must } from './dom.js'

/** Draw now, and again whenever the kernel reports a change over server-sent events (`changed` gets the names of
 * the conversations that changed). Draws never overlap; a (re)connected stream may have missed changes, so it
 * redraws on `ready` too. */
export function live(draw: () => Promise<void>, delayMs = 50) {
  let timer: ReturnType<typeof setTimeout> | undefined
  let running = Promise.resolve()
  const status = must('#status')
  const redraw = () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      running = running.then(draw).catch((e: Error) => {
        status.textContent = e.message
      })
    }, delayMs)
  }
  const es = new EventSource('/api/events')
  es.addEventListener('change', redraw)
  es.addEventListener('ready', () => {
    document.body.dataset.live = 'yes'
    redraw()
  })
  es.addEventListener('error', () => {
    document.body.dataset.live = 'no'
  })
  redraw()
}

/** Say what an action did, or why it was refused, in the header's status line. */
export const say = (msg: string) => {
  must('#status').textContent = msg
}
