import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { closeDeckWorld, launchLane, openDeckWorld, shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { TestHome, until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { criticScript } from '../e2e/api-kit.js'

/** The Command Deck in a real browser (the headless Chromium npm installs, driven by playwright-core) against a real
 * kernel running a real gauntlet: an orchestrator lane with a builder and a handed-off successor, a critic judging the
 * builder, a lane taking a message from the composer, and a dirty lane reaped with park. Each step
 * leaves a screenshot in test-artifacts/screenshots/. */

interface World extends DeckWorld {
  /** Conversation ids of the gauntlet. */
  ids: Record<string, string>
}

const deck = suite<World>('deck')

deck.before(async (w) => {
  await openDeckWorld(w, 'browser')
  w.ids = { root: w.s.root }
})

deck.after(closeDeckWorld)

const launch = launchLane
/** The row of a conversation (its own, not its children's). */
const row = (w: World, id: string) => w.page.locator(`li[data-id="${id}"] > .row`)
const text = async (w: World, selector: string) => ((await w.page.locator(selector).textContent()) ?? '').trim()

deck(
  'svc deck prints a one-time link; the browser trades it for a deck session cookie (never the token) and lands on ' +
    'the deck',
  async (w) => {
    const url = JSON.parse(await w.h.ok(['deck', '--json', '--no-open'])).url as string
    await w.page.goto(url)
    assert.is(new URL(w.page.url()).pathname, '/')
    assert.is(await w.page.title(), 'Command Deck')
    const [cookie] = await w.browser.cookies()
    assert.equal(
      [cookie.name, cookie.httpOnly, cookie.sameSite, cookie.path],
      [`svc_deck_${w.api.port}`, true, 'Strict', '/'],
    )
    assert.is.not(cookie.value, w.api.token)
    assert.ok(
      cookie.expires > Date.now() / 1000 && cookie.expires <= Date.now() / 1000 + 12 * 3600 + 5,
      'the session expires within 12 hours',
    )
    assert.is(await w.page.evaluate(() => document.cookie), '', 'the session is out of reach of page scripts')
    await w.page.locator('#runs .empty').filter({ hasText: 'no lanes' }).waitFor(WAIT)
    await w.page.locator('#inbox .empty').filter({ hasText: 'nobody is waiting on you' }).waitFor(WAIT)
    await w.page.waitForFunction(() => document.body.dataset.live === 'yes', undefined, WAIT)
    // The link is spent.
    const again = await w.page.goto(url)
    assert.is(again!.status(), 401)
    await w.page.goto(new URL('/', url).toString())
  },
)

deck(
  'Agents: every conversation as a tree: the builder nested under the orchestrator that launched it, the successor ' +
    'beside it marked continues ← #id',
  async (w) => {
    const h = w.h
    await w.page.goto(`${w.api.base}/agents`)
    writeFileSync(
      join(h.home, 'builder.md'),
      `echo building parser\n${w.g.wait('b')}\n${buildAndReport('parser built')}`,
    )
    const o = await launch(w, {
      key: 'o',
      role: 'orchestrator',
      prompt:
        `svc lane start --key b --role builder --brief ${h.home}/builder.md\nsvc handoff --harness none > ` +
        `${h.home}/succ\n${w.g.wait('o')}`,
    })
    assert.is(o.status, 201, JSON.stringify(o.body))
    w.ids.o = o.body.lane.id
    w.ids.succ = (await until(
      () => existsSync(join(h.home, 'succ')) && readFileSync(join(h.home, 'succ'), 'utf8').trim(),
      'the successor',
    )) as string
    w.ids.b = (await w.api.get('/api/lanes?key=b')).body[0].id
    const { root, o: oid, b, succ } = w.ids

    await w.page.locator(`li[data-id="${root}"] > ul > li[data-id="${oid}"] > ul > li[data-id="${b}"]`).waitFor(WAIT)
    await w.page.locator(`li[data-id="${oid}"] > ul > li[data-id="${succ}"]`).waitFor(WAIT)
    assert.is(await text(w, `li[data-id="${succ}"] > .row [data-continues]`), `continues ← #${oid}`)
    assert.is(
      await w.page.locator(`li[data-id="${oid}"] > ul > li`).count(),
      2,
      'the builder and the successor, side by side',
    )

    const builder = row(w, b)
    assert.is((await builder.locator('[data-role]').textContent())!.trim(), 'builder i1')
    assert.is(await builder.locator('[data-activity]').getAttribute('data-activity'), 'working')
    assert.match((await builder.locator('.evidence').textContent())!, /^process start, \d+s ago$/)
    assert.is((await builder.locator('[data-report]').textContent())!.trim(), 'no report')
    const lane = (await w.api.get(`/api/lanes/${b}`)).body
    // Not pushed yet (the builder waits at its gate): no upstream, so no ahead count. The words are the list's.
    assert.is((await builder.locator('[data-git]').textContent())!.trim(), `r1/b@${lane.git.head.slice(0, 7)} dirty no`)
    const listed = (await w.h.ok(['lane', 'list']))
      .split('\n')
      .find((l) => l.startsWith(`${b} `))!
      .split(/ +/)
    assert.equal(listed.slice(8, 11), [`r1/b@${lane.git.head.slice(0, 7)}`, '-', 'no'], 'the CLI prints the same cells')
    assert.match((await builder.textContent())!, 'model-builder')
    assert.is((await row(w, oid).locator('[data-role]').textContent())!.trim(), 'orchestrator i1')
    await shot(w, 'agents-tree.png')

    // Searchable: by run/key, by id; the rows above a match stay, so it is still seen where it sits.
    await w.page.fill('#search', 'r1/b builder')
    await w.page.locator(`li[data-id="${oid}"] > ul > li[data-id="${succ}"]`).waitFor({ state: 'detached', ...WAIT })
    assert.is(
      await w.page.locator(`li[data-id="${root}"] > ul > li[data-id="${oid}"] > ul > li[data-id="${b}"]`).count(),
      1,
    )
    await w.page.fill('#search', 'no-such-thing')
    await w.page.locator('#tree .empty').filter({ hasText: 'no conversation matches' }).waitFor(WAIT)
    await w.page.fill('#search', '')
    await w.page.locator(`li[data-id="${succ}"]`).waitFor(WAIT)
  },
)

deck(
  'live over SSE: the builder reports and its row changes without a reload; the critic nests under it with its ' +
    'badge, and the builder links to it',
  async (w) => {
    const { b, o } = w.ids
    await w.page.evaluate(() => ((window as unknown as { marker: number }).marker = 42))
    w.g.open('b')
    await row(w, b).locator('[data-report="done"]').waitFor(WAIT)
    assert.is((await row(w, b).locator('[data-report]').textContent())!.trim(), 'report: done')

    const c = await launch(w, {
      for: 'b',
      role: 'critic',
      prompt:
        `${criticScript('NOT_YET', ['splits on commas only', 'no test for an empty line'], 'two defects')}` +
        `${w.g.wait('c')}`,
    })
    assert.is(c.status, 201, JSON.stringify(c.body))
    w.ids.c = c.body.lane.id
    const critic = w.page.locator(`li[data-id="${b}"] > ul > li[data-id="${w.ids.c}"]`)
    await critic.locator('> .row [data-verdict="NOT_YET"]').waitFor(WAIT)
    assert.is((await critic.locator('> .row [data-verdict]').textContent())!.trim(), 'NOT_YET 2')
    assert.is((await critic.locator('> .row [data-role]').textContent())!.trim(), 'critic i1')
    const link = row(w, b).locator(`a[data-verdict-link="${w.ids.c}"]`)
    await link.waitFor(WAIT)
    assert.is((await link.textContent())!.trim(), 'NOT_YET 2')
    assert.is(await link.getAttribute('href'), `/conv/${w.ids.c}`)
    assert.is(
      await w.page.evaluate(() => (window as unknown as { marker?: number }).marker),
      42,
      'the page was never reloaded',
    )

    assert.is(await row(w, o).locator('[data-orch-cost]').getAttribute('data-orch-cost'), '0.00')
    // A lane with a cost (the fake claude's first turn: $0.0213), launched by the root into the orchestrator's care.
    const think = await launch(w, { key: 'think', role: 'play', harness: 'claude', prompt: 'think it over', parent: o })
    assert.is(think.status, 201, JSON.stringify(think.body))
    w.ids.think = think.body.lane.id
    await w.page
      .locator(`li[data-id="${o}"] > ul > li[data-id="${w.ids.think}"] > .row .cost`)
      .filter({ hasText: '$0.02' })
      .waitFor(WAIT)
    assert.is(await row(w, o).locator('[data-orch-cost]').getAttribute('data-orch-cost'), '0.02')
    assert.match((await row(w, w.ids.think).textContent())!, 'play i1')
    await shot(w, 'agents-live.png')

    // The Command Deck: run r1 with its counts, its cost, and each key's chain over its lanes.
    await w.page.goto(`${w.api.base}/`)
    await w.page.locator('[data-run-cost="r1"]').filter({ hasText: 'run r1: $0.02' }).waitFor(WAIT)
    await w.page
      .locator('[data-chain="r1/b"]')
      .filter({ hasText: 'b i1 built → critic c1: NOT_YET (2 defects)' })
      .waitFor(WAIT)
    assert.equal(
      await w.page
        .locator('[data-run="r1"] [data-key="b"] > ul > li')
        .evaluateAll((ls) => ls.map((l) => (l as HTMLElement).dataset.id)),
      [b, w.ids.c],
    )
    // The counts agree with the lanes API (polled: a lane may turn idle between two reads).
    await until(async () => {
      const counts = Object.fromEntries(
        await w.page
          .locator('[data-run="r1"] [data-count]')
          .evaluateAll((cs) => cs.map((c) => [(c as HTMLElement).dataset.count, c.textContent])),
      )
      const lanes = (await w.api.get('/api/lanes?run=r1')).body as { activity: string; report?: unknown }[]
      const n = (f: (l: { activity: string; report?: unknown }) => boolean) => lanes.filter(f).length
      const want = {
        working: `${n((l) => l.activity === 'working')} working`,
        'needs-you': '0 needs-you',
        idle: `${n((l) => l.activity === 'idle')} idle`,
        'host-lost': '0 host-lost',
        failed: '0 failed',
        reported: `${n((l) => Boolean(l.report))} reported`,
        stale: '0 stale',
      }
      return JSON.stringify(counts) === JSON.stringify(want) && want.reported === '2 reported'
    }, 'the run counts to match the lanes')
    assert.is(
      await row(w, o).locator('[data-orch-cost]').getAttribute('data-orch-cost'),
      '0.02',
      'the cost per orchestrator, on its row',
    )
    await shot(w, 'deck-live.png')
    await w.page.goto(`${w.api.base}/agents`)
    await link.waitFor(WAIT)

    await link.click()
    await w.page.waitForURL(`**/conv/${w.ids.c}`)
    await w.page
      .locator('#title')
      .filter({ hasText: `#${w.ids.c} r1-b-critic-i1` })
      .waitFor(WAIT)
    assert.match(await text(w, '#facts'), 'r1/b critic i1')
    assert.match(await text(w, '#facts'), 'for b i1')
  },
)

deck('filters: by run and by parent', async (w) => {
  const p = await launch(w, { key: 'x', role: 'play', run: 'r2', prompt: 'echo other run' })
  w.ids.r2 = p.body.lane.id
  await w.page.goto(`${w.api.base}/?run=r2`)
  await w.page.locator('[data-run="r2"]').waitFor(WAIT)
  assert.is(await w.page.locator('[data-run="r1"]').count(), 0, 'the deck shows run r2 alone')
  await w.page.goto(`${w.api.base}/agents?run=r2`)
  await w.page.locator(`li[data-id="${w.s.root}"] > ul > li[data-id="${w.ids.r2}"]`).waitFor(WAIT)
  assert.is(await w.page.locator(`li[data-id="${w.ids.o}"]`).count(), 0, 'run r1 is filtered out')
  assert.equal(await w.page.locator('#run option').allTextContents(), ['all', 'r1', 'r2'])
  assert.is(await w.page.locator('#run').inputValue(), 'r2')

  await w.page.selectOption('#run', 'r1')
  await w.page.waitForURL('**/agents?run=r1')
  await w.page.locator(`li[data-id="${w.ids.b}"]`).waitFor(WAIT)
  assert.is(await w.page.locator(`li[data-id="${w.ids.r2}"]`).count(), 0)
  assert.is(
    await w.page.locator(`li[data-id="${w.ids.succ}"]`).count(),
    1,
    'the successor stays with the run it continues',
  )

  await w.page.goto(`${w.api.base}/agents?parent=${w.ids.o}`)
  await w.page.locator(`#tree > li[data-id="${w.ids.o}"]`).waitFor(WAIT)
  assert.is(await w.page.locator(`li[data-id="${w.s.root}"]`).count(), 0)
  assert.is(await w.page.locator('#parent').inputValue(), w.ids.o)
  await shot(w, 'deck-filter-parent.png')
})

deck('a conversation page: its transcript, and a message sent from the composer reaches the lane', async (w) => {
  const chat = await launch(w, {
    key: 'chat',
    role: 'builder',
    prompt:
      'echo waiting for a message\nwhile ! grep -q hello "$SERVICE_INBOX" 2>/dev/null; do sleep 0.05; done\necho ' +
      '"got: $(cat "$SERVICE_INBOX")"',
  })
  const id = chat.body.lane.id
  await w.page.goto(`${w.api.base}/conv/${id}`)
  await w.page.locator('#transcript [data-kind="stdout"]').filter({ hasText: 'waiting for a message' }).waitFor(WAIT)
  await w.page.fill('#message', 'hello from the deck')
  await w.page.click('#composer button[type="submit"]')
  await w.page.locator('#status').filter({ hasText: 'sent' }).waitFor(WAIT)
  assert.is(await w.page.inputValue('#message'), '')
  await w.page.locator('#transcript [data-kind="user"]').filter({ hasText: 'hello from the deck' }).waitFor(WAIT)
  await w.page.locator('#transcript [data-kind="stdout"]').filter({ hasText: 'got: hello from the deck' }).waitFor(WAIT)
  await w.page.locator('#facts [data-activity="stopped"]').waitFor(WAIT)
  await shot(w, 'conv-composer.png')

  // A lane that can no longer read a message: the composer is disabled, with the reason svc tell would give.
  await w.page
    .locator('#composer-reason')
    .filter({ hasText: `conv ${id} (r1-chat-builder-i1) is stopped; the message would not reach it` })
    .waitFor(WAIT)
  assert.ok(await w.page.isDisabled('#message'))
  assert.ok(await w.page.isDisabled('#composer button[type="submit"]'))
  await shot(w, 'conv-composer-disabled.png')
})

deck(
  'reap from the conversation page: refused while dirty, then with park the work is parked and the lane archived, ' +
    'live on the deck',
  async (w) => {
    const dirty = await launch(w, { key: 'd', role: 'builder', prompt: 'echo half done > wip.txt' })
    const id = dirty.body.lane.id
    const dir = join(w.s.lanesRoot, 'r1-d')
    await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.activity === 'stopped', 'the dirty lane to end')
    await w.page.goto(`${w.api.base}/conv/${id}`)
    await w.page.locator('#reap').waitFor({ state: 'visible', ...WAIT })
    await w.page.click('#reap-go')
    assert.match(
      (await w.page.locator('#confirm-what').textContent())!,
      `Reap #${id} r1-d-builder-i1? Its directory ${dir} is removed (refused if it holds uncommitted work)`,
    )
    await w.page.click('#confirm-go')
    await w.page
      .locator('#status')
      .filter({
        hasText:
          `refused: ${dir} has uncommitted changes (1 path); commit them, or tick “park uncommitted work” to ` +
          `save them to a patch`,
      })
      .waitFor(WAIT)
    assert.ok(existsSync(join(dir, 'wip.txt')), 'a refused reap cleans nothing')

    await w.page.check('#park')
    await w.page.click('#reap-go')
    await w.page.click('#confirm-go')
    await w.page.locator('#status').filter({ hasText: 'reaped; parked to ' }).waitFor(WAIT)
    const patch = (await text(w, '#status')).replace('reaped; parked to ', '')
    assert.match(patch, new RegExp(`^${join(w.h.service, 'agents', 'conv-r1-d-builder-i1')}/parked-.+\\.patch$`))
    assert.match(readFileSync(patch, 'utf8'), '+half done')
    assert.not.ok(existsSync(dir))
    await w.page.locator('#facts .activity-archived').waitFor(WAIT)
    await w.page.locator('#reap').waitFor({ state: 'hidden', ...WAIT })
    // The page lists the parked patch with the ref that keeps its tree.
    await w.page.locator('#parked [data-parked]').waitFor(WAIT)
    assert.match(
      (await w.page.locator('#parked [data-parked]').textContent())!,
      `${patch} refs/svc/parked/r1-d-builder-i1/`,
    )
    const l = (await w.api.get(`/api/lanes/${id}`)).body
    assert.equal([l.archived, l.activity], [true, 'stopped'])
    await shot(w, 'conv-reaped.png')

    await w.page.goto(`${w.api.base}/`)
    await row(w, id).locator('.activity-archived').waitFor(WAIT)
    assert.is((await row(w, id).locator('[data-activity]').textContent())!.trim(), 'archived')
    await shot(w, 'deck-final.png')
    w.g.open('c')
    w.g.open('o')
  },
)

deck(
  'a second kernel on the same machine: logging in to its deck leaves the browser logged in to the first',
  async (w) => {
    const other = new TestHome('browser-second')
    try {
      await other.ok(['conv', 'new', '--harness', 'none'])
      const url = JSON.parse(await other.ok(['deck', '--json', '--no-open'])).url as string
      await w.page.goto(url)
      assert.is(await w.page.title(), 'Command Deck', 'the second deck')
      const first = await w.page.goto(w.api.base + '/')
      assert.is(first?.status(), 200, 'the first deck still lets the browser in')
      assert.is(await w.page.title(), 'Command Deck')
      const names = (await w.browser.cookies()).map((c) => c.name).sort()
      assert.equal(
        names,
        [`svc_deck_${other.kernelFile()!.port}`, `svc_deck_${w.api.port}`].sort(),
        'one cookie per kernel',
      )
    } finally {
      await other.stop()
    }
  },
)

deck(
  'Agents: a worker nests under the conversation that ran it, with its iteration, its issue and its newest report',
  async (w) => {
    const ref = (await w.h.ok(['issue', 'new', '--project', w.s.project.key, '--title', 'Deck worker'], { here: true }))
      .trim()
      .split('\n')
      .at(-1)!
    const out = await w.h.ok(
      ['worker', 'run', ref, '--harness', 'shell', '--prompt', buildAndReport('worker done', 'wd.txt', 'worker')],
      { env: w.s.env, here: true },
    )
    const id = /conv (\d+) /.exec(out)![1]
    await w.page.goto(`${w.api.base}/agents`)
    const r = w.page.locator(`li[data-id="${w.s.root}"] li[data-id="${id}"] > .row`)
    await r.locator('[data-report="done"]').waitFor(WAIT)
    assert.is((await r.locator('[data-role]').textContent())!.trim(), 'worker i1')
    assert.is((await r.locator('[data-issue]').textContent())!.trim(), ref)
    await shot(w, 'agents-worker.png')
  },
)

deck.run()
