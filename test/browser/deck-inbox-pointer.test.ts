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

const pending = async (w: DeckWorld, id: string) => (await w.api.get(`/api/convs/${id}`)).body.pending?.kind

inbox(
  "the inbox never moves under the pointer: after Allow, the answered entry keeps its place and the next agent's button does not slide under it",
  async (w) => {
    const first = await askingConv(w)
    const second = await askingConv(w)
    await w.page.goto(`${w.api.base}/`)
    const a = w.page.locator(`#inbox [data-inbox="${first}"]`)
    const b = w.page.locator(`#inbox [data-inbox="${second}"] button.allow`)
    await a.locator('[data-ask="permission"]').waitFor(WAIT)
    await b.waitFor(WAIT)
    const before = (await b.boundingBox())!
    await a.locator('button.allow').click()
    await w.page
      .locator('#status')
      .filter({ hasText: `answered allow to #${first} c${first} (permission for Bash: rm -rf build)` })
      .waitFor(WAIT)
    await until(async () => (await pending(w, first)) === 'question', 'the first to ask its next question')
    // A change after that makes the deck draw what the kernel says now.
    const t = Date.now()
    await launchLane(w, { key: 'poke', role: 'play', prompt: 'true' })
    await w.page.waitForFunction((t) => Number(document.body.dataset.drawn) > t, t, WAIT)
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

inbox.run()
