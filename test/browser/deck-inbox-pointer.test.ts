import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, deckLogin, askingConv } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'

/** The needs-you inbox never moves under the pointer: after an Allow, what was answered keeps its place until the
 * pointer leaves, so a second click cannot land on the next agent's button. */

const inbox = suite<DeckWorld>('deck inbox under the pointer')

inbox.before(async (w) => {
  await deckLogin(w, 'browser-inbox-pointer')
})
inbox.after(closeDeckWorld)

/** The deck with both asking conversations in its inbox: the first's entry, the second's Allow and where it is. */
async function openInbox(w: DeckWorld, first: string, second: string) {
  await w.page.goto(`${w.api.base}/`)
  const a = w.page.locator(`#inbox [data-inbox="${first}"]`)
  const b = w.page.locator(`#inbox [data-inbox="${second}"] button.allow`)
  await a.locator('[data-ask="permission"]').waitFor(WAIT)
  await b.waitFor(WAIT)
  return { a, b, before: (await b.boundingBox())! }
}

/** Make the deck draw what the kernel says now: a change after everything before it. */
async function drawnNow(w: DeckWorld, key: string) {
  const t = Date.now()
  await launchLane(w, { key, role: 'play', prompt: 'true' })
  await w.page.waitForFunction((t) => Number(document.body.dataset.drawn) > t, t, WAIT)
}

const pending = async (w: DeckWorld, id: string) => (await w.api.get(`/api/convs/${id}`)).body.pending?.kind

inbox(
  "the inbox never moves under the pointer: after Allow, the answered entry keeps its place and the next agent's " +
    'button does not slide under it',
  async (w) => {
    const first = await askingConv(w)
    const second = await askingConv(w)
    const { a, b, before } = await openInbox(w, first, second)
    await a.locator('button.allow').click()
    await w.page
      .locator('#status')
      .filter({ hasText: `answered allow to #${first} c${first} (permission for Bash: rm -rf build)` })
      .waitFor(WAIT)
    await until(async () => (await pending(w, first)) === 'question', 'the first to ask its next question')
    await drawnNow(w, 'poke')
    const held = w.page.locator(`#inbox [data-held="${first}"]`)
    assert.is(
      (await held.locator('.said').textContent())!.trim(),
      `answered allow to #${first} c${first} (permission for Bash: rm -rf build)`,
    )
    assert.equal(await b.boundingBox(), before, "the second agent's Allow stayed where it was")
    await shot(w, 'deck-inbox-held.png')
    await w.page.mouse.move(1, 1)
    await a.locator('[data-ask="question"]').waitFor(WAIT)
    assert.is(await held.count(), 0)
  },
)

inbox(
  'an answer on its way holds its entry: the kernel saying it waits no more, or asks again, moves nothing under the ' +
    'pointer',
  async (w) => {
    const first = await askingConv(w)
    const second = await askingConv(w)
    // The answer reaches the kernel at once, but its reply comes back to the page only when the test says: the
    // order a loaded machine gives now and then (the stream first, the reply after).
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    const route = `**/api/convs/${first}/answer`
    await w.page.route(route, async (r) => {
      const response = await r.fetch()
      await released
      await r.fulfill({ response })
    })
    const { a, b, before } = await openInbox(w, first, second)
    await a.locator('button.allow').click()
    await until(async () => (await pending(w, first)) === 'question', 'the first to ask its next question')
    await drawnNow(w, 'poke-out')
    const held = w.page.locator(`#inbox [data-held="${first}"]`)
    assert.is(
      (await held.locator('.said').textContent())!.trim(),
      `answering allow to #${first} c${first} (permission for Bash: rm -rf build)`,
    )
    assert.is(
      await w.page.locator(`#inbox [data-inbox="${first}"]`).count(),
      0,
      'the new question waits for the pointer',
    )
    assert.equal(await b.boundingBox(), before, "the second agent's Allow stayed where it was while the answer was out")
    release()
    await held
      .locator('.said')
      .filter({ hasText: `answered allow to #${first} c${first} (permission for Bash: rm -rf build)` })
      .waitFor(WAIT)
    assert.equal(await b.boundingBox(), before, "the second agent's Allow stayed where it was once the reply came")
    await w.page.mouse.move(1, 1)
    await a.locator('[data-ask="question"]').waitFor(WAIT)
    await w.page.unroute(route)
  },
)

inbox(
  'an entry that stops waiting while the pointer is over the inbox keeps its place as a line saying so',
  async (w) => {
    const first = await askingConv(w)
    const second = await askingConv(w)
    const { b, before } = await openInbox(w, first, second)
    await w.page.locator(`#inbox [data-inbox="${second}"] .inbox-head`).hover()
    await w.h.ok(['conv', 'stop', first], { here: true })
    await until(async () => (await pending(w, first)) === undefined, 'the stopped conversation to wait no more')
    await drawnNow(w, 'poke-stop')
    const held = w.page.locator(`#inbox [data-held="${first}"]`)
    assert.is((await held.locator('.said').textContent())!.trim(), 'no longer waiting')
    assert.equal(await b.boundingBox(), before, "the second agent's Allow stayed where it was")
    await w.page.mouse.move(1, 1)
    await held.waitFor({ state: 'detached', ...WAIT })
  },
)

inbox.run()
