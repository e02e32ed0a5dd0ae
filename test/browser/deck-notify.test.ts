import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { closeDeckWorld, launchLane, openDeckWorld, deckLink, askingConv } from '../helpers/deck-browser.js'
import { WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'

/** Browser notifications on the Command Deck: opt-in, a choice of which events, events close together raised as one,
 * and never one event twice however often the page draws. */

const notify = suite<DeckWorld>('deck notifications')

/** Stands in for the browser's Notification (a headless browser shows none): records what the deck raises; the
 * permission, once granted, is kept as a browser keeps it. */
const NOTIFICATION_RECORDER = () => {
  const w = window as unknown as { __notes: { title: string; body?: string }[]; Notification: unknown }
  w.__notes = []
  class Recorder {
    static permission = localStorage.getItem('granted') ? 'granted' : 'default'
    static async requestPermission() {
      Recorder.permission = 'granted'
      localStorage.setItem('granted', 'yes')
      return 'granted'
    }
    onclick: (() => void) | null = null
    constructor(title: string, o?: { body?: string }) {
      w.__notes.push({ title, body: o?.body })
    }
  }
  w.Notification = Recorder
}

notify.before(async (w) => {
  await openDeckWorld(w, 'browser-notify')
  await w.browser.addInitScript(NOTIFICATION_RECORDER)
  await w.page.goto(await deckLink(w))
})
notify.after(closeDeckWorld)

const notes = (w: DeckWorld) =>
  w.page.evaluate(() => (window as unknown as { __notes: { title: string; body?: string }[] }).__notes)
/** Reports and waits make the page draw again and again: more changes, more chances to raise one twice. Each test
 * churns with keys of its own: a key whose lane from an earlier test has not yet been seen to end is still live, and
 * launching it again would be refused. */
const churn = async (w: DeckWorld, tag: string, n: number) => {
  for (let i = 0; i < n; i++) {
    const l = await launchLane(w, { key: `${tag}${i}`, role: 'play', run: 'churn', prompt: 'true' })
    assert.is(l.status, 201, JSON.stringify(l.body))
  }
}

notify(
  'opt-in with a choice of events: reports unticked, a report raises nothing and a wait on you raises one',
  async (w) => {
    await w.page.goto(`${w.api.base}/`)
    await w.page.waitForFunction(() => document.body.dataset.drawn, undefined, WAIT)
    assert.ok(await w.page.isHidden('#notify-kinds'), 'the choices show once notifications are on')
    await w.page.click('#notify')
    await w.page.locator('#notify').filter({ hasText: 'Notifications on' }).waitFor(WAIT)
    assert.equal(await w.page.locator('#notify-kinds label').allTextContents(), [
      ' waiting on you',
      ' reports',
      ' failures',
    ])
    await w.page.uncheck('[data-notify-kind="report"]')
    const p = await launchLane(w, { key: 'n', role: 'builder', prompt: buildAndReport('all done') })
    await until(async () => (await w.api.get(`/api/lanes/${p.body.lane.id}`)).body.report, 'the report')
    const asks = await askingConv(w)
    await until(async () => (await notes(w)).length >= 1, 'a notification')
    await churn(w, 'opt', 3)
    await w.page.waitForFunction(() => document.body.dataset.drawn, undefined, WAIT)
    await until(async () => (await w.api.get(`/api/lanes?run=churn`)).body.length === 3, 'the churn')
    assert.equal(await notes(w), [{ title: `#${asks} c${asks} needs you`, body: 'permission for Bash: rm -rf build' }])
    assert.is(await w.page.evaluate(() => localStorage.getItem('svc-deck-notify-kinds')), '["needs","failed"]')
    await w.api.post(`/api/convs/${asks}/stop`, {})
  },
)

notify('events close together make one notification, and none is raised twice', async (w) => {
  await w.page.goto(`${w.api.base}/`)
  await w.page.check('[data-notify-kind="report"]')
  await w.page.waitForFunction(() => document.body.dataset.drawn, undefined, WAIT)
  const before = (await notes(w)).length
  const ids: string[] = []
  for (const key of ['a', 'b', 'c'])
    ids.push(
      (
        await launchLane(w, {
          key,
          role: 'builder',
          prompt: `${w.g.wait('batch')}\nsvc lane report --status blocked --stdin <<'EOF'\nBLOCKED on ${key}\nEOF`,
        })
      ).body.lane.id,
    )
  await launchLane(w, { key: 'dies', role: 'play', prompt: `${w.g.wait('batch')}\nexit 3` })
  w.g.open('batch')
  await until(async () => {
    const got = await Promise.all(ids.map(async (id) => (await w.api.get(`/api/lanes/${id}`)).body.report))
    return got.every(Boolean)
  }, 'the three reports')
  const lines = async () => {
    const raised = (await notes(w)).slice(before)
    return { raised, titles: raised.flatMap((n) => [n.title, ...(n.body ?? '').split('\n')]) }
  }
  // On a loaded machine the events may reach the page in more than one burst: every report is waited for, raised
  // alone or in a burst, before what was raised is counted.
  const reported = (titles: string[], key: string) =>
    titles.some((t) => t.includes(`r1/${key} builder reported blocked`))
  await until(
    async () => {
      const { titles } = await lines()
      return ['a', 'b', 'c'].every((key) => reported(titles, key))
    },
    'a notification of each report',
    WAIT.timeout,
  )
  await churn(w, 'burst', 3)
  await until(async () => (await w.api.get(`/api/lanes?run=churn`)).body.length === 6, 'more churn')
  await w.page.waitForTimeout(1000)
  const { raised, titles } = await lines()
  for (const key of ['a', 'b', 'c'])
    assert.is(
      titles.filter((t) => t.includes(`r1/${key} builder reported blocked`)).length,
      1,
      `${key}'s report, exactly once (${JSON.stringify(raised)})`,
    )
  assert.ok(raised.length < 4, `fewer notifications than events (${raised.length})`)
  assert.ok(
    raised.some((n) => /^\d+ events: /.test(n.title)),
    `several events in one (${JSON.stringify(raised)})`,
  )
})

notify.run()
