import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, openDeckWorld, deckLink } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'

/** Triage on the Command Deck: a search over the lanes, "hide finished" (kept by the browser), and runs whose every
 * lane is archived below the active ones. */

interface World extends DeckWorld {
  ids: Record<string, string>
}
const triage = suite<World>('deck triage')

triage.before(async (w) => {
  await openDeckWorld(w, 'browser-triage')
  w.ids = {}
  for (const [key, prompt] of [
    ['live', w.g.wait('live')],
    ['done', 'echo nothing to do'],
    ['bad', 'exit 3'],
  ])
    w.ids[key] = (await launchLane(w, { key, role: 'play', prompt })).body.lane.id
  w.ids.old = (await launchLane(w, { key: 'old', role: 'play', run: 'r0', prompt: 'true' })).body.lane.id
  for (const k of ['done', 'bad', 'old'])
    await until(async () => (await w.api.get(`/api/lanes/${w.ids[k]}`)).body.activity === 'stopped', `${k} to end`)
  assert.is((await w.api.post(`/api/lanes/${w.ids.old}/reap`, {})).status, 200)
  await w.page.goto(await deckLink(w))
})
triage.after(async (w) => {
  w.g.open('live')
  await closeDeckWorld(w)
})

const rows = (w: World) =>
  w.page.locator('#runs li[data-id]').evaluateAll((ls) => ls.map((l) => (l as HTMLElement).dataset.id))

triage('runs whose every lane is archived come after the active ones', async (w) => {
  await w.page.locator(`#runs li[data-id="${w.ids.old}"]`).waitFor(WAIT)
  assert.equal(
    await w.page.locator('#runs section[data-run]').evaluateAll((ss) => ss.map((s) => (s as HTMLElement).dataset.run)),
    ['r1', 'r0'],
  )
  assert.is(await w.page.getAttribute('[data-run="r0"]', 'data-archived'), 'true')
  await shot(w, 'deck-archived-last.png')
})

triage('search narrows the lanes and says how many it left out', async (w) => {
  await w.page.keyboard.press('/')
  await w.page.keyboard.type('r1/bad')
  await w.page.locator(`#runs li[data-id="${w.ids.live}"]`).waitFor({ state: 'detached', ...WAIT })
  assert.equal(await rows(w), [w.ids.bad])
  assert.is((await w.page.locator('[data-hidden]').textContent())!.trim(), '3 lanes not shown (search)')
  await w.page.fill('#search', 'no such lane')
  await w.page.locator('#runs .empty').filter({ hasText: 'no lane matches' }).waitFor(WAIT)
  await w.page.fill('#search', '')
  await w.page.locator(`#runs li[data-id="${w.ids.live}"]`).waitFor(WAIT)
})

triage('hide finished leaves what is live or failed, and is kept after a reload', async (w) => {
  await w.page.check('#hide-finished')
  await w.page.locator(`#runs li[data-id="${w.ids.done}"]`).waitFor({ state: 'detached', ...WAIT })
  assert.equal((await rows(w)).sort(), [w.ids.live, w.ids.bad].sort(), 'the live lane and the failed one')
  assert.is((await w.page.locator('[data-hidden]').textContent())!.trim(), '2 lanes not shown (hide finished)')
  await w.page.reload()
  await w.page.locator(`#runs li[data-id="${w.ids.bad}"]`).waitFor(WAIT)
  assert.ok(await w.page.isChecked('#hide-finished'))
  assert.equal((await rows(w)).sort(), [w.ids.live, w.ids.bad].sort())
  await shot(w, 'deck-hide-finished.png')
  await w.page.uncheck('#hide-finished')
})

triage.run()
