import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, deckLogin, askingConv } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'

/** The needs-you inbox on the Command Deck: a self-marked wait answered with a field (by keyboard too), entries named
 * by title and project and following the run filter, answers by keyboard with an Undo before a permission is
 * allowed, and words that say for whom. (That it never moves under the pointer: deck-inbox-pointer.) */

const inbox = suite<DeckWorld>('deck inbox')

inbox.before(async (w) => {
  await deckLogin(w, 'browser-inbox')
})
inbox.after(closeDeckWorld)

const said = async (w: DeckWorld, id: string) =>
  ((await w.api.get(`/api/convs/${id}/transcript`)).body.entries as { kind: string; text: string }[])
    .filter((e) => e.kind === 'user')
    .map((e) => e.text)
const pending = async (w: DeckWorld, id: string) => (await w.api.get(`/api/convs/${id}`)).body.pending?.kind

inbox(
  'a self-marked wait is answered from the inbox: a field, reached with a; the entry names its title and project; ' +
    'the run filter holds',
  async (w) => {
    const l = await launchLane(w, {
      key: 'm',
      role: 'builder',
      title: 'Pick the storage',
      prompt:
        'svc conv mark needs-you --reason question\nwhile ! grep -q . "$SERVICE_INBOX" 2>/dev/null; do sleep 0.05; ' +
        'done\nsvc conv mark working\necho "got: $(cat "$SERVICE_INBOX")"',
    })
    const id = l.body.lane.id
    await w.page.goto(`${w.api.base}/`)
    const entry = w.page.locator(`#inbox [data-inbox="${id}"]`)
    await entry.locator('[data-ask="mark"]').waitFor(WAIT)
    assert.is((await entry.locator('.inbox-head a').textContent())!.trim(), `#${id} Pick the storage`)
    assert.is((await entry.locator('[data-project]').textContent())!.trim(), w.s.project.key)
    assert.match((await entry.locator('.inbox-head').textContent())!, 'r1/m builder i1')

    // Another run's filter leaves it out and says so; its own run's keeps it.
    await launchLane(w, { key: 'x', role: 'play', run: 'r2', prompt: 'true' })
    await w.page.goto(`${w.api.base}/?run=r2`)
    await w.page
      .locator('#inbox [data-elsewhere="1"]')
      .filter({ hasText: '1 more waiting in other runs' })
      .waitFor(WAIT)
    assert.is(await w.page.locator('#inbox [data-inbox]').count(), 0)
    assert.is(await w.page.locator('#inbox-count').textContent(), '0')
    await w.page.goto(`${w.api.base}/?run=r1`)
    await entry.waitFor(WAIT)
    assert.is(await w.page.locator('#inbox [data-elsewhere]').count(), 0)

    await w.page.keyboard.press('j')
    await w.page.keyboard.press('a')
    assert.is(await w.page.evaluate(() => document.activeElement?.getAttribute('data-mark-answer')), '')
    await w.page.keyboard.type('use sqlite')
    await w.page.keyboard.press('Enter')
    await w.page
      .locator('#status')
      .filter({ hasText: `sent to #${id} r1-m-builder-i1: use sqlite` })
      .waitFor(WAIT)
    await until(async () => (await said(w, id)).includes('use sqlite'), 'the message to reach the lane')
    await shot(w, 'deck-inbox-mark.png')
  },
)

inbox(
  'by keyboard: a, Enter allows with Undo in its place (Enter again undoes, nothing sent), then the question and ' +
    'the plan; the words say for whom',
  async (w) => {
    const id = await askingConv(w)
    await w.page.goto(`${w.api.base}/`)
    const entry = w.page.locator(`#inbox [data-inbox="${id}"]`)
    await entry.locator('[data-ask="permission"]').waitFor(WAIT)
    // The first test's lane leaves the inbox only once its own `svc conv mark working` has run, which may come after
    // this page's first draw; it waits longer, so it would come first and j would choose it.
    await w.page.locator('#inbox-count').filter({ hasText: /^1$/ }).waitFor(WAIT)
    assert.is((await entry.locator('.needs-what').textContent())!.trim(), 'permission for Bash')
    assert.is((await entry.locator('[data-tool]').textContent())!.trim(), 'Bash')
    assert.is((await entry.locator('.tool-input').textContent())!.trim(), 'rm -rf build')
    // Count the answers the page sends.
    await w.page.evaluate(() => {
      const w = window as unknown as { __answers: number }
      w.__answers = 0
      const real = window.fetch
      window.fetch = (input, init) => {
        if (String(input).endsWith('/answer')) w.__answers++
        return real(input, init)
      }
    })
    const answers = () => w.page.evaluate(() => (window as unknown as { __answers: number }).__answers)
    await w.page.mouse.move(0, 0)
    await w.page.keyboard.press('j')
    assert.ok(await entry.evaluate((e) => e.classList.contains('current')))
    await w.page.keyboard.press('a')
    assert.is(await w.page.evaluate(() => document.activeElement?.textContent), 'Allow')
    await w.page.keyboard.press('Enter')
    const waiting = entry.locator('[data-pending="allow"]')
    assert.is((await waiting.textContent())!.trim(), `Allowing Bash: rm -rf build for #${id} c${id} in 3 s`)
    assert.is(await w.page.evaluate(() => document.activeElement?.textContent), 'Undo')
    // Undone well within the 3 s: nothing slow (a screenshot) comes between the Allow and its Undo.
    await w.page.keyboard.press('Enter')
    await w.page
      .locator('#status')
      .filter({ hasText: `not sent: the allow to #${id} c${id} was undone` })
      .waitFor(WAIT)
    await entry.locator('button.allow').waitFor(WAIT)
    assert.is(await pending(w, id), 'permission')

    await w.page.keyboard.press('a')
    await w.page.keyboard.press('Enter')
    // The picture of an Allow waiting with its Undo is taken while this one waits: here a slow screenshot delays
    // nothing the test checks.
    await shot(w, 'deck-inbox-undo.png')
    await w.page
      .locator('#status')
      .filter({ hasText: `answered allow to #${id} c${id} (permission for Bash: rm -rf build)` })
      .waitFor(WAIT)
    assert.is(await answers(), 1, 'the undone allow was never sent')
    await entry.locator('[data-ask="question"]').waitFor(WAIT)
    assert.equal(await entry.locator('[data-option]').allTextContents(), ['Postgres', 'SQLite'])
    assert.is((await entry.locator('.needs-what').textContent())!.trim(), 'question for AskUserQuestion')
    assert.is(
      (await entry.locator('[data-question]').textContent())!.trim(),
      'Database: Which database should the new service use?',
    )
    await w.page.keyboard.press('a')
    assert.is(await w.page.evaluate(() => document.activeElement?.textContent), 'Postgres')
    await w.page.keyboard.press('Enter')
    await entry.locator('[data-plan]').filter({ hasText: '1. Add the storage module' }).waitFor(WAIT)
    assert.is((await entry.textContent())!.split('1. Add the storage module').length, 2, 'the plan is printed once')
    await entry.locator('.answer-message').fill('smaller steps')
    await entry.locator('.answer-message').press('Tab')
    await w.page.keyboard.press('Tab')
    await w.page.keyboard.press('Enter')
    await w.page.locator('#inbox .empty').filter({ hasText: 'nobody is waiting on you' }).waitFor(WAIT)
    assert.equal((await said(w, id)).slice(-3), [
      'allow (permission: Bash)',
      'allow (question: AskUserQuestion): Postgres',
      'deny (plan: ExitPlanMode): smaller steps',
    ])
  },
)

inbox.run()
