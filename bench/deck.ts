import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { ensureKernel } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { CHROMIUM_ARGS, chromiumExecutable } from '../test/helpers/chromium.js'
import { writeStore } from './gen.js'
import { benchHome, median, run, SVC, type Figure } from './lib.js'

const LANES = 1000
const LOADS = 5
const UPDATES = 5

/** The Command Deck at 1000 lanes in Chromium: its first render (from navigation to the runs drawn, bundle, SSE and
 * the tree fetch included) and an update after one report (from the change event reaching the page to the row
 * showing the report; and, for information, from the report filed to the row). */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('deck')
  const browser = await chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    args: CHROMIUM_ARGS,
  })
  try {
    writeStore(h.service, { n: LANES + 1, lanes: LANES, reportsPer: 0, lanesRoot: join(h.home, 'lanes') })
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const base = `http://127.0.0.1:${k.port}`
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    await page.goto(JSON.parse(run(process.execPath, [SVC, 'deck', '--json', '--no-open'], { env: h.env })).url)
    await page.locator('[data-run="bench"]').waitFor({ timeout: 30_000 })

    const firsts: number[] = []
    const fetches: number[] = []
    for (let i = 0; i < LOADS + 1; i++) {
      await page.goto(`${base}/`)
      await page.waitForFunction(() => performance.getEntriesByName('svc:drawn').length > 0, undefined, {
        timeout: 30_000,
      })
      const ms = await page.evaluate(() => performance.getEntriesByName('svc:drawn')[0].startTime)
      const fetched = await page.evaluate(() => performance.getEntriesByName('svc:fetched')[0].startTime)
      // The first load warms the kernel's caches and the browser's.
      if (i > 0) {
        firsts.push(ms)
        fetches.push(fetched)
      }
    }
    const rows = await page.locator('#runs li[data-id]').count()
    if (rows !== LANES) throw new Error(`the deck drew ${rows} rows, not ${LANES}`)

    const updates: number[] = []
    const endToEnd: number[] = []
    for (let i = 0; i < UPDATES; i++) {
      const id = String(2 + i * 97)
      await page.evaluate((id) => {
        performance.clearMarks('svc:change')
        const w = window as unknown as { __seen?: number }
        w.__seen = undefined
        const seen = () => document.querySelector(`li[data-id="${id}"] > .row [data-report="done"]`)
        new MutationObserver((_, o) => {
          if (seen()) {
            w.__seen = performance.now()
            o.disconnect()
          }
        }).observe(document.querySelector('#runs')!, { childList: true, subtree: true })
      }, id)
      const filed = Date.now()
      const res = await fetch(`${base}/rpc/laneReport`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ conversation: id, body: `report ${i}` }),
      })
      if (!res.ok) throw new Error(`the report was refused: ${await res.text()}`)
      await page.waitForFunction(() => (window as unknown as { __seen?: number }).__seen !== undefined, undefined, {
        timeout: 30_000,
      })
      const t = await page.evaluate(() => ({
        seen: (window as unknown as { __seen: number }).__seen,
        change: performance.getEntriesByName('svc:change')[0]?.startTime,
        origin: performance.timeOrigin,
      }))
      updates.push(t.seen - t.change)
      endToEnd.push(t.origin + t.seen - filed)
    }
    const first = median(firsts)
    const update = median(updates)
    const note = (xs: number[]) => `median of ${xs.length}: ${xs.map((x) => x.toFixed(0)).join(', ')} ms`
    return [
      {
        what: `Command Deck, ${LANES} lanes, Chromium: first render`,
        value: first,
        unit: 'ms',
        target: '≤ 300 ms',
        ok: first <= 300,
        note: `${note(firsts)}; the tree fetched and parsed at ${median(fetches).toFixed(0)} ms`,
      },
      {
        what: `Command Deck, ${LANES} lanes, Chromium: update after one report (change event to row drawn)`,
        value: update,
        unit: 'ms',
        target: '≤ 50 ms',
        ok: update <= 50,
        note: note(updates),
      },
      {
        what: `Command Deck, ${LANES} lanes, Chromium: report filed to row drawn`,
        value: median(endToEnd),
        unit: 'ms',
        target: '≤ 50 ms',
        ok: median(endToEnd) <= 50,
        informational: true,
        note: note(endToEnd),
      },
    ]
  } finally {
    await browser.close()
    h.cleanup()
  }
}
