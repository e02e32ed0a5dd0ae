import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, deckLogin, askingConv } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'

/** A conversation's page: what a harness asks, shown once and answered there; one that does not exist takes no
 * message; tool calls read as what they do; a parked patch can be read. */

const conv = suite<DeckWorld>('deck conversation page')

conv.before(async (w) => {
  await deckLogin(w, 'browser-conv')
})
conv.after(closeDeckWorld)

conv('an unknown conversation: the page says so and its composer is disabled', async (w) => {
  await w.page.goto(`${w.api.base}/conv/999`)
  await w.page.waitForFunction(() => document.body.dataset.unknown === 'yes', undefined, WAIT)
  assert.ok(await w.page.isDisabled('#message'))
  assert.ok(await w.page.isDisabled('#composer button[type="submit"]'))
  assert.match((await w.page.locator('#composer-reason').textContent())!, /^nothing to send to: .*999/)
  for (const sel of ['#stop', '#reap', '#archive', '#respawn']) assert.ok(await w.page.isHidden(sel), sel)
  await shot(w, 'conv-unknown.png')
})

conv('tool calls read as the tool, what it runs, and its other fields, not as JSON', async (w) => {
  const id = await askingConv(w)
  await w.page.goto(`${w.api.base}/conv/${id}`)
  const call = w.page
    .locator('#transcript [data-kind="tool"]')
    .filter({ has: w.page.locator('[data-tool-name="Bash"]') })
  await call.first().waitFor(WAIT)
  assert.is((await call.first().locator('.tool-main').textContent())!, 'rm -rf build')
  assert.is(
    (await call.first().locator('[data-field="description"]').textContent())!,
    'description: Remove the stale build directory',
  )
  assert.not.match((await call.first().textContent())!, '{"command"')
  await shot(w, 'conv-tool-calls.png')
})

conv('a parked patch is viewable from its page: what the reap saved, line by line', async (w) => {
  const dirty = await launchLane(w, { key: 'd', role: 'builder', prompt: 'echo half done > wip.txt' })
  const id = dirty.body.lane.id
  await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.activity === 'stopped', 'the lane to end')
  const reaped = await w.api.post(`/api/lanes/${id}/reap`, { park: true })
  assert.is(reaped.status, 200, JSON.stringify(reaped.body))
  const name = (reaped.body.parked.patch as string).split('/').at(-1)!
  await w.page.goto(`${w.api.base}/conv/${id}`)
  await w.page.click(`[data-view-parked="${name}"]`)
  const patch = w.page.locator(`[data-parked-patch="${name}"]`)
  await patch.waitFor(WAIT)
  assert.match((await patch.textContent())!, '+half done')
  assert.is(await patch.locator('.add').filter({ hasText: '+half done' }).count(), 1)
  const bad = await w.page.evaluate(async (u) => (await fetch(u)).status, `/api/convs/${id}/parked/..%2Fstate.json`)
  assert.is(bad, 400, 'only a parked patch of its own')
  await shot(w, 'conv-parked-view.png')
})

conv('needs-you: what the harness asks shows on its page and is answered there', async (w) => {
  const id = await askingConv(w)
  await w.page.goto(`${w.api.base}/conv/${id}`)
  const needs = w.page.locator('#needs-what')
  // What it asks, once: the head names the kind and the tool, the detail below holds the rest.
  await needs.filter({ hasText: 'permission for Bash' }).waitFor(WAIT)
  assert.is((await w.page.locator('#needs .tool-input').textContent())!.trim(), 'rm -rf build')
  assert.is((await needs.textContent())!.trim(), 'permission for Bash')
  assert.ok(await w.page.isVisible('#needs'))
  assert.is(await w.page.getAttribute('#facts [data-activity]', 'data-activity'), 'needs-you')
  await shot(w, 'conv-needs-you.png')
  await w.page.click('#allow')
  await w.page.locator('#needs [data-pending="allow"]').waitFor(WAIT)
  await w.page
    .locator('#status')
    .filter({ hasText: `answered allow to #${id} c${id} (permission for Bash: rm -rf build)` })
    .waitFor(WAIT)

  await needs.filter({ hasText: 'question for AskUserQuestion' }).waitFor(WAIT)
  assert.is(
    (await w.page.locator('#needs-body').textContent())!.split('Which database should the new service use?').length,
    2,
    'the question is printed once',
  )
  await w.page.fill('#answer-message', 'Postgres')
  await w.page.click('#allow')
  await needs.filter({ hasText: 'plan for ExitPlanMode' }).waitFor(WAIT)
  assert.is((await w.page.locator('#needs-body').textContent())!.split('1. Add the storage module').length, 2)
  await w.page.fill('#answer-message', 'smaller steps')
  await w.page.click('#deny')
  await w.page.locator('#facts [data-activity="idle"]').waitFor(WAIT)
  assert.not.ok(await w.page.isVisible('#needs'))
  // A draw fills the facts first and appends to the transcript only after one more request: the draw that shows idle
  // may not have appended the deny yet.
  await w.page
    .locator('#transcript [data-kind="user"]')
    .filter({ hasText: 'deny (plan: ExitPlanMode): smaller steps' })
    .waitFor(WAIT)
  const said = await w.page.locator('#transcript [data-kind="user"]').allTextContents()
  assert.equal(
    said.slice(-3).map((t) => t.replace(/^\S+ user /, '')),
    [
      'allow (permission: Bash)',
      'allow (question: AskUserQuestion): Postgres',
      'deny (plan: ExitPlanMode): smaller steps',
    ],
  )
})

conv.run()
