/** The keyboard, on every page: j / k (or the arrows) move through the rows and the inbox, Enter opens the row's
 * conversation, a goes to the first answer control of the chosen entry (or of the page: a self-marked wait's field), /
 * to the search, c to the composer, Escape leaves a field, u or Backspace goes back to the list. */
const NAV = '[data-nav]'

let current: string | undefined

/** The chosen item, kept across redraws by its data-nav value. */
export function restoreCurrent() {
  const el = current ? document.querySelector<HTMLElement>(`${NAV}[data-nav="${CSS.escape(current)}"]`) : null
  el?.classList.add('current')
}

function move(by: number) {
  const items = [...document.querySelectorAll<HTMLElement>(NAV)].filter((e) => e.offsetParent !== null)
  if (!items.length) return
  const at = items.findIndex((e) => e.dataset.nav === current)
  const next = items[Math.max(0, Math.min(items.length - 1, at < 0 ? 0 : at + by))]
  document.querySelectorAll(`${NAV}.current`).forEach((e) => e.classList.remove('current'))
  next.classList.add('current')
  current = next.dataset.nav
  next.scrollIntoView({ block: 'nearest' })
}

const chosen = () => document.querySelector<HTMLElement>(`${NAV}.current`)

export function installKeys() {
  document.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement
    const typing = t.matches('input, textarea, select')
    if (e.key === 'Escape') {
      if (typing) t.blur()
      return
    }
    // A focused button or link takes Enter itself.
    if (typing || e.ctrlKey || e.metaKey || e.altKey || (e.key === 'Enter' && t.matches('button, a'))) return
    const go = (f: () => void) => {
      e.preventDefault()
      f()
    }
    const page = document.body.dataset.page
    if (e.key === 'j' || e.key === 'ArrowDown') go(() => move(1))
    else if (e.key === 'k' || e.key === 'ArrowUp') go(() => move(-1))
    else if (e.key === 'Enter' && chosen())
      go(() => chosen()!.querySelector<HTMLAnchorElement>('a[href^="/conv/"]')?.click())
    else if (e.key === 'a')
      go(() => (chosen() ?? document).querySelector<HTMLElement>('.ask .mark-answer, .ask button')?.focus())
    else if (e.key === '/') go(() => document.querySelector<HTMLElement>('#search')?.focus())
    else if (e.key === 'c') go(() => document.querySelector<HTMLElement>('#message:not([disabled])')?.focus())
    else if ((e.key === 'u' || e.key === 'Backspace') && page === 'conv')
      go(() => (history.length > 1 ? history.back() : location.assign('/')))
  })
}
