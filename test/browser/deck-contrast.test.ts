import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, openDeckWorld, deckLink, askingConv } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { criticScript } from '../e2e/api-kit.js'

/** WCAG AA on every page of the deck, measured in the browser: every piece of text against what is really behind it
 * (its own and its ancestors' backgrounds, their opacity), with zero counts, badges, chips, a failed lane, a verdict
 * and a waiting question on screen. Normal text needs 4.5:1, large text 3:1; a disabled control is exempt. */

interface World extends DeckWorld {
  ids: Record<string, string>
}
const contrast = suite<World>('deck contrast')

contrast.before(async (w) => {
  await openDeckWorld(w, 'browser-contrast')
  const b = await launchLane(w, { key: 'b', role: 'builder', prompt: buildAndReport('built') })
  const dead = await launchLane(w, { key: 'dead', role: 'play', prompt: 'exit 127' })
  await until(async () => (await w.api.get(`/api/lanes/${b.body.lane.id}`)).body.report, 'the builder to report')
  const c = await launchLane(w, { for: 'b', role: 'critic', prompt: criticScript('NOT_YET', ['a defect'], 'one') })
  const asks = await askingConv(w)
  w.ids = { b: b.body.lane.id, c: c.body.lane.id, asks: asks.trim() }
  await until(async () => (await w.api.get(`/api/lanes/${c.body.lane.id}`)).body.verdict, 'the critic verdict')
  // The failed chip the first test measures is drawn once the dead lane's end is recorded, which nothing above waits
  // for: on a loaded machine the other lanes may get there first.
  await until(async () => (await w.api.get(`/api/lanes/${dead.body.lane.id}`)).body.failed, 'the dead lane to fail')
  await w.page.goto(await deckLink(w))
})
contrast.after(closeDeckWorld)

interface Finding {
  text: string
  where: string
  ratio: number
  need: number
}

/** Every visible text's contrast ratio against its effective background, in the page. */
function audit(): Finding[] {
  type RGBA = [number, number, number, number]
  const parse = (c: string): RGBA => {
    const m = /rgba?\(([^)]+)\)/.exec(c)
    if (!m) return [0, 0, 0, 0]
    const [r, g, b, a] = m[1].split(/[ ,/]+/).map(Number)
    return [r, g, b, a ?? 1]
  }
  const over = (top: RGBA, under: RGBA): RGBA => {
    const a = top[3]
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1) as RGBA
  }
  const lum = (c: RGBA) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const background = (el: Element | null): RGBA => {
    const layers: RGBA[] = []
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor)
      if (bg[3] > 0) layers.push(bg)
      if (bg[3] === 1) break
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1] as RGBA)
  }
  const opacity = (el: Element | null) => {
    let o = 1
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity)
    return o
  }
  const out: Finding[] = []
  for (const el of document.querySelectorAll<HTMLElement>('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim())
    if (
      !own ||
      el.matches('script, style, title') ||
      el.closest('[disabled], [hidden], details:not([open]) > :not(summary)')
    )
      continue
    const rect = el.getBoundingClientRect()
    if (!rect.width || !rect.height || getComputedStyle(el).visibility === 'hidden') continue
    const style = getComputedStyle(el)
    const bg = background(el)
    const fgRaw = parse(style.color)
    const fg = over([fgRaw[0], fgRaw[1], fgRaw[2], fgRaw[3] * opacity(el)], bg)
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a)
    const ratio = Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100
    const size = parseFloat(style.fontSize)
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700)
    out.push({
      text: el.textContent!.trim().slice(0, 40),
      where: `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`,
      ratio,
      need: large ? 3 : 4.5,
    })
  }
  return out
}

async function check(w: World, page: string, ready: string, prepare?: () => Promise<void>) {
  await w.page.goto(`${w.api.base}${page}`)
  await w.page.locator(ready).first().waitFor(WAIT)
  await w.page.waitForFunction(() => document.body.dataset.conn === 'live', undefined, WAIT)
  await prepare?.()
  const found = await w.page.evaluate(audit)
  const failing = found.filter((f) => f.ratio < f.need)
  // The lowest ratio of each kind of element, for the record.
  const lowest = new Map<string, number>()
  for (const f of found) lowest.set(f.where, Math.min(f.ratio, lowest.get(f.where) ?? Infinity))
  console.log(
    `${page}: ${found.length} texts, lowest ${[...lowest]
      .sort((a, b) => a[1] - b[1])
      .slice(0, 6)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  )
  assert.equal(failing, [], `${page}: text under WCAG AA`)
  assert.ok(found.length > 20, `${page}: the audit saw the page's text (${found.length})`)
  return found
}

contrast(
  'the Command Deck: zero counts, count badges, chips, a failed lane, a verdict badge, the inbox, the start forms',
  async (w) => {
    const found = await check(w, '/', '#inbox [data-ask]', () => w.page.click('#start summary'))
    assert.ok(
      found.some((f) => f.text === 'A worker on an issue'),
      'the open start form was measured',
    )
    const zero = found.filter((f) => f.where === 'span.count.count-needs-you.zero')
    assert.ok(zero.length >= 1, 'a zero count was measured')
    assert.ok(
      found.some((f) => f.where.startsWith('span.chip.activity-failed')),
      'the failed chip was measured',
    )
    assert.ok(
      found.some((f) => f.where.startsWith('a.badge.verdict-NOT_YET')),
      'a verdict badge was measured',
    )
    await shot(w, 'contrast-deck.png')
  },
)

contrast('the Agents page and a conversation page', async (w) => {
  await check(w, '/agents', `li[data-id="${w.ids.b}"]`)
  // With the reap's question open.
  const conv = await check(w, `/conv/${w.ids.c}`, '#reports [data-verdict]', () => w.page.click('#reap-go'))
  assert.ok(
    conv.some((f) => f.text.startsWith('Reap #')),
    'the confirmation was measured',
  )
  assert.ok(conv.some((f) => f.where.startsWith('span.badge.verdict-NOT_YET')))
})

contrast('with no one waiting: the zero inbox badge', async (w) => {
  await w.api.post(`/api/convs/${w.ids.asks}/stop`, {})
  const found = await check(w, '/', '#inbox .empty')
  const badge = found.find((f) => f.where === 'span.count-badge')
  assert.ok(badge && badge.text === '0', 'the zero badge was measured')
})

contrast.run()
