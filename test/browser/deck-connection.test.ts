import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, openDeckWorld, deckLink } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'

/** Nothing dead looks alive: a browser without a session gets a page saying what to run, a lane that died without a
 * report looks failed and is counted, and the page says whether it follows the kernel (live, reconnecting, lost),
 * comes back by itself where it can, and says what to run where it cannot. */

const conn = suite<DeckWorld>('deck connection')

conn.before((w) => openDeckWorld(w, 'browser-conn'))
conn.after(closeDeckWorld)

const chip = (w: DeckWorld) => w.page.locator('#conn')

conn('a deck page without a session, or a spent link, is a page saying what to run, not an error body', async (w) => {
  for (const path of ['/', '/agents', '/conv/1']) {
    const res = await w.page.goto(`${w.api.base}${path}`)
    assert.is(res!.status(), 401, path)
    assert.match(res!.headers()['content-type'], 'text/html')
    await w.page.locator('[data-session-lost]').waitFor(WAIT)
    assert.is(
      (await w.page.locator('[data-reason]').textContent())!.trim(),
      'This browser holds no session for this deck.',
    )
    assert.match(
      (await w.page.locator('main').textContent())!,
      'Run svc deck in a terminal and open the link it prints',
    )
  }
  await shot(w, 'deck-no-session.png')
  const url = await deckLink(w)
  await w.page.goto(url)
  await w.page.locator('#conn[data-conn="live"]').waitFor(WAIT)
  const spent = await w.page.goto(url)
  assert.is(spent!.status(), 401)
  assert.is(
    (await w.page.locator('[data-reason]').textContent())!.trim(),
    'this deck link was used already or has expired; run svc deck for a new one',
  )
})

conn(
  'a lane whose harness exited 3 with no report looks failed and its run counts it; one that exited 0 is stopped',
  async (w) => {
    const bad = await launchLane(w, { key: 'bad', role: 'play', prompt: 'echo about to fail\nexit 3' })
    const fine = await launchLane(w, { key: 'fine', role: 'play', prompt: 'echo nothing to do' })
    assert.is(bad.status, 201, JSON.stringify(bad.body))
    for (const id of [bad.body.lane.id, fine.body.lane.id])
      await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.activity === 'stopped', 'the lane to end')
    await w.page.goto(`${w.api.base}/`)
    const failed = w.page.locator(`li[data-id="${bad.body.lane.id}"] > .row [data-activity]`)
    await failed.filter({ hasText: 'failed' }).waitFor(WAIT)
    assert.is((await failed.textContent())!.trim(), 'failed (exit code 3, no report)')
    assert.is(await failed.getAttribute('class'), 'chip activity-failed')
    assert.is(await failed.getAttribute('data-activity'), 'stopped', 'the API value stays as SPEC.md derives it')
    const ok = w.page.locator(`li[data-id="${fine.body.lane.id}"] > .row [data-activity]`)
    assert.is((await ok.textContent())!.trim(), 'stopped')
    assert.is(await ok.getAttribute('data-failed'), null)
    assert.is((await w.page.locator('[data-run="r1"] [data-count="failed"]').textContent())!.trim(), '1 failed')
    // One evaluation finds the chip and reads its colours: a live redraw between a handle and its read would leave
    // a detached element, whose computed style is empty.
    const [fg, bg] = await w.page.evaluate((id) => {
      const e = document.querySelector(`li[data-id="${id}"] > .row [data-activity]`)!
      return [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]
    }, bad.body.lane.id)
    assert.equal([fg, bg], ['rgb(138, 28, 21)', 'rgb(255, 214, 214)'], 'red, not grey')
    await shot(w, 'deck-failed-lane.png')
    await w.page.goto(`${w.api.base}/conv/${bad.body.lane.id}`)
    await w.page.locator('#facts .activity-failed').filter({ hasText: 'failed (exit code 3, no report)' }).waitFor(WAIT)
  },
)

conn(
  'a revoked session: the page says lost and what to run; a new link opened in another tab brings it back by itself',
  async (w) => {
    await w.page.goto(`${w.api.base}/`)
    await w.page.locator('#conn[data-conn="live"]').waitFor(WAIT)
    assert.is(await w.page.locator('#conn-banner').isHidden(), true, 'no banner while live')
    await w.h.ok(['deck', '--revoke'], { here: true })
    // The next draw (on the next change) meets the refused session.
    await launchLane(w, { key: 'poke', role: 'play', prompt: 'true' })
    await w.page.locator('#conn[data-conn="lost"]').waitFor(WAIT)
    const banner = w.page.locator('#conn-banner')
    assert.ok(await banner.isVisible())
    assert.is(
      (await banner.textContent())!.trim(),
      'Connection lost the deck session has expired or was revoked: run svc deck in a terminal and open the link it ' +
        'prints.',
    )
    await shot(w, 'deck-session-lost.png')
    const other = await w.browser.newPage()
    await other.goto(await deckLink(w))
    await w.page.locator('#conn[data-conn="live"]').waitFor(WAIT)
    assert.ok(await banner.isHidden())
    await other.close()
  },
)

conn('the kernel stops: the page says reconnecting, then lost with what to run, and greys what it shows', async (w) => {
  await w.page.goto(`${w.api.base}/`)
  await w.page.locator('#conn[data-conn="live"]').waitFor(WAIT)
  assert.is((await chip(w).textContent())!.trim(), 'live')
  const seen: string[] = []
  await w.page.exposeFunction('__conn', (s: string) => seen.push(s))
  await w.page.evaluate(() =>
    new MutationObserver(() =>
      (window as unknown as { __conn: (s: string) => void }).__conn(document.body.dataset.conn ?? ''),
    ).observe(document.body, { attributes: true, attributeFilter: ['data-conn'] }),
  )
  await w.h.ok(['kernel', 'stop'])
  await w.page.locator('#conn[data-conn="lost"]').waitFor(WAIT)
  assert.ok(seen.includes('reconnecting'), `reconnecting came first (${seen.join(', ')})`)
  const words = (await w.page.locator('#conn-banner').textContent())!.trim()
  assert.match(
    words,
    new RegExp(
      `^Connection lost the kernel at 127\\.0\\.0\\.1:${w.api.port} has not answered for \\d+s: what this page ` +
        `shows may be out of date\\. Start it with svc kernel start; this page reconnects by itself once it answers ` +
        `\\(if it comes back elsewhere, run svc deck in a terminal and open the link it prints\\)\\.$`,
    ),
  )
  assert.is(await w.page.evaluate(() => getComputedStyle(document.querySelector('#runs')!).filter), 'grayscale(1)')
  await shot(w, 'deck-kernel-lost.png')
})

conn.run()
