import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { closeDeckWorld, launchLane, shot, WAIT, deckLogin, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'

/** Work started and ended from the page, through the kernel's own rules: a lane from the Command Deck's form (refused
 * as svc lane start refuses, in the page's words), a worker on an issue, a failed lane respawned in its directory,
 * an archive, and a stop that asks first. */

const actions = suite<DeckWorld>('deck actions')

actions.before(async (w) => {
  await deckLogin(w, 'browser-actions')
})
actions.after(closeDeckWorld)

const status = (w: DeckWorld, text: string) => w.page.locator('#status').filter({ hasText: text }).waitFor(WAIT)
const result = (w: DeckWorld) => w.page.locator('#start-result')

actions(
  "start a lane from the Command Deck: launched by the chosen conversation, a second one refused in the page's " +
    'words, then replaced',
  async (w) => {
    await w.page.goto(`${w.api.base}/`)
    await w.page.click('#start summary')
    await w.page.locator(`#start-as option[value="${w.s.root}"]`).waitFor({ state: 'attached', ...WAIT })
    await w.page.selectOption('#start-as', w.s.root)
    await w.page.selectOption('#start-role', 'play')
    await w.page.fill('#start-key', 'p')
    await w.page.fill('#start-run', 'r1')
    await w.page.selectOption('#start-harness', 'shell')
    await w.page.fill('#start-brief', w.g.wait('p'))
    await shot(w, 'deck-start-form.png')
    await w.page.click('#start-form button[type="submit"]')
    await result(w).filter({ hasText: 'Lane r1/p play i1: conv ' }).waitFor(WAIT)
    const id = /conv (\d+) /.exec((await result(w).textContent())!)![1]
    const lane = (await w.api.get(`/api/lanes/${id}`)).body
    assert.equal([lane.parent, lane.run, lane.key, lane.role, lane.harness], [w.s.root, 'r1', 'p', 'play', 'shell'])
    assert.is(await result(w).locator('a').getAttribute('href'), `/conv/${id}`)

    await w.page.click('#start-form button[type="submit"]')
    await result(w).locator('[data-refused]').waitFor(WAIT)
    const refusal = (await result(w).textContent())!.trim()
    assert.is(refusal, `lane r1/p play i1 is live (conv ${id}); tick “replace the live one” to stop it and launch anew`)
    assert.not.match(refusal, '--', 'no CLI flag in the page')
    await shot(w, 'deck-start-refused.png')

    await w.page.check('#start-replace')
    await w.page.click('#start-form button[type="submit"]')
    await result(w).filter({ hasText: 'Lane r1/p play i2: conv ' }).waitFor(WAIT)
    await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.activity === 'stopped', 'the first to stop')
    w.g.open('p')
  },
)

actions('a worker on an issue, from the Command Deck', async (w) => {
  const ref = (await w.h.ok(['issue', 'new', '--project', w.s.project.key, '--title', 'Deck worker'], { here: true }))
    .trim()
    .split('\n')
    .at(-1)!
  await w.page.goto(`${w.api.base}/`)
  await w.page.click('#start summary')
  await w.page.locator(`#worker-as option[value="${w.s.root}"]`).waitFor({ state: 'attached', ...WAIT })
  await w.page.fill('#worker-issue', ref)
  await w.page.selectOption('#worker-harness', 'shell')
  await w.page.fill('#worker-brief', 'echo working on it')
  await w.page.click('#worker-form button[type="submit"]')
  await result(w)
    .filter({ hasText: `Worker ${ref} i1: conv ` })
    .waitFor(WAIT)
  const id = /conv (\d+) /.exec((await result(w).textContent())!)![1]
  assert.is((await w.api.get(`/api/workers/${id}`)).body.issue, ref)
})

actions(
  'a failed lane: respawned from its page in the same directory (same brief, same parent), and archived',
  async (w) => {
    const bad = await launchLane(w, { key: 'f', role: 'builder', prompt: 'echo trying\nexit 3' })
    const id = bad.body.lane.id
    await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.activity === 'stopped', 'the lane to fail')
    await w.page.goto(`${w.api.base}/conv/${id}`)
    await w.page.locator('#facts .activity-failed').waitFor(WAIT)
    await w.page.locator('#respawn').waitFor({ state: 'visible', ...WAIT })
    assert.ok(await w.page.isHidden('#stop'), 'nothing to stop')
    await w.page.click('#respawn')
    await status(w, 'respawned: Lane r1/f builder i1: conv ')
    const again = /conv (\d+) /.exec((await w.page.locator('#status').textContent())!)![1]
    const lane = (await w.api.get(`/api/lanes/${again}`)).body
    assert.equal([lane.parent, lane.iteration, lane.cwd], [w.s.root, 1, join(w.s.lanesRoot, 'r1-f')])
    assert.is(
      (await w.api.get(`/api/convs/${again}/detail`)).body.brief,
      (await w.api.get(`/api/convs/${id}/detail`)).body.brief,
    )

    await w.page.click('#archive')
    await status(w, 'archived: r1-f-builder-i1')
    await w.page.locator('#facts .activity-archived').waitFor(WAIT)
    assert.is((await w.api.get(`/api/lanes/${id}`)).body.archived, true)
  },
)

actions(
  'stop asks first: Cancel is focused and Enter cancels; the button that stops is not where Stop was',
  async (w) => {
    const l = await launchLane(w, { key: 'hold', role: 'play', prompt: w.g.wait('hold') })
    const id = l.body.lane.id
    await w.page.goto(`${w.api.base}/conv/${id}`)
    await w.page.locator('#stop').waitFor({ state: 'visible', ...WAIT })
    const stopAt = (await w.page.locator('#stop').boundingBox())!
    await w.page.click('#stop')
    await w.page.locator('#confirm').waitFor({ state: 'visible', ...WAIT })
    assert.is(
      (await w.page.locator('#confirm-what').textContent())!.trim(),
      `Stop #${id} r1-hold-play-i1? Its harness is signalled to end; what it has not committed stays in its directory.`,
    )
    assert.is(await w.page.evaluate(() => document.activeElement?.id), 'confirm-cancel')
    const goAt = (await w.page.locator('#confirm-go').boundingBox())!
    assert.ok(Math.abs(goAt.y - stopAt.y) > goAt.height, 'a second click where Stop was does not stop')
    await shot(w, 'conv-stop-confirm.png')
    await w.page.keyboard.press('Enter')
    await w.page.locator('#confirm').waitFor({ state: 'hidden', ...WAIT })
    assert.is((await w.api.get(`/api/lanes/${id}`)).body.activity !== 'stopped', true, 'cancelled: still live')
    await w.page.click('#stop')
    await w.page.click('#confirm-go')
    await status(w, 'stopped: stopped')
    w.g.open('hold')
  },
)

actions.run()
