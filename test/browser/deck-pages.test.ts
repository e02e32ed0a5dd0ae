import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { closeDeckWorld, launchLane, openDeckWorld, deckLink } from '../helpers/deck-browser.js'
import { shot, WAIT, type DeckWorld } from '../helpers/deck-browser.js'
import { git, until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { criticScript } from '../e2e/api-kit.js'

/** The deck's pages against a real kernel: a conversation page that says what happened (reports, verdict with its
 * defects, chain, contract and brief, the change against its base with its "more"), and
 * hostile text through every field.
 * Screenshots go to test-artifacts/screenshots/. */

interface World extends DeckWorld {
  dialogs: string[]
}

const pages = suite<World>('deck pages')

pages.before(async (w) => {
  await openDeckWorld(w, 'browser-pages')
  w.dialogs = []
  w.page.on('dialog', (d) => {
    w.dialogs.push(d.message())
    void d.dismiss()
  })
  await w.page.goto(await deckLink(w))
})

pages.after(closeDeckWorld)

const launch = launchLane
pages(
  'a conversation page says what happened: reports with their bodies, the verdict with the defects of its file, the ' +
    'chain, brief and contract',
  async (w) => {
    const b = await launch(w, {
      key: 'b',
      role: 'builder',
      prompt: buildAndReport(
        '# Parser\n\nSplits **lines**; see [the notes](https://example.org/notes).\n\n- fast\n- `small`',
      ),
    })
    assert.is(b.status, 201, JSON.stringify(b.body))
    await until(async () => (await w.api.get(`/api/lanes/${b.body.lane.id}`)).body.report, 'the builder to report')
    const c = await launch(w, {
      for: 'b',
      role: 'critic',
      prompt: criticScript(
        'NOT_YET',
        ['splits on commas only', 'no test for an empty line', 'README not updated'],
        'Three defects, listed in the file.',
      ),
    })
    assert.is(c.status, 201, JSON.stringify(c.body))
    const cid = c.body.lane.id
    await w.page.goto(`${w.api.base}/conv/${cid}`)
    const card = w.page.locator('#reports [data-report-seq="1"]')
    await card.locator('[data-verdict="NOT_YET"]').waitFor(WAIT)
    assert.is((await card.locator('[data-verdict]').textContent())!.trim(), 'NOT_YET 3')
    // The list is read once it is drawn whole: a draw of the card met once in CI with its badge but not its list.
    await card.locator('[data-defect]').nth(2).waitFor(WAIT)
    assert.equal(await card.locator('[data-defect]').allTextContents(), [
      'splits on commas only',
      'no test for an empty line',
      'README not updated',
    ])
    assert.match((await card.locator('[data-verdict-file]').textContent())!, /conv-r1-b-critic-i1\/verdict\.json$/)
    assert.is((await card.locator('[data-report-body]').textContent())!.trim(), 'Three defects, listed in the file.')
    assert.is(
      (await w.page.locator('#chain [data-chain]').textContent())!.trim(),
      'i1 built → critic c1: NOT_YET (3 defects)',
    )
    assert.match((await w.page.locator('#worktree').textContent())!, 'r1-b-critic-i1')
    await w.page.click('#contract summary:has-text("Contract")')
    assert.match((await w.page.locator('#contract pre.contract').textContent())!, 'critic')
    await shot(w, 'conv-critic-verdict.png')

    // The builder: its report body as markdown (heading, strong, an http link, a list, code), nothing else.
    await w.page.goto(`${w.api.base}/conv/${b.body.lane.id}`)
    const body = w.page.locator('#reports [data-report-seq="1"] [data-report-body]')
    await body.locator('h3').filter({ hasText: 'Parser' }).waitFor(WAIT)
    assert.is(await body.locator('strong').textContent(), 'lines')
    assert.is(await body.locator('a').getAttribute('href'), 'https://example.org/notes')
    assert.equal(await body.locator('li').allTextContents(), ['fast', 'small'])
    assert.is(await body.locator('li code').textContent(), 'small')
    await w.page.click('#contract summary:has-text("Brief")')
    assert.match((await w.page.locator('#contract details[open]').textContent())!, 'svc lane report --stdin')
    await shot(w, 'conv-builder-report.png')

    // The builder moves past the commit the critic judged: its verdict is marked stale, here and on the deck.
    git(join(w.s.lanesRoot, 'r1-b'), 'commit', '-q', '--allow-empty', '-m', 'moved on')
    await until(async () => (await w.api.get(`/api/lanes/${cid}`)).body.verdict?.stale, 'the verdict to go stale')
    await w.page.goto(`${w.api.base}/conv/${cid}`)
    await w.page.locator('#reports [data-stale]').waitFor(WAIT)
    assert.is(
      (await w.page.locator('#reports [data-stale]').textContent())!.trim(),
      'stale: the builder moved past the judged commit',
    )
    await w.page.goto(`${w.api.base}/`)
    await w.page
      .locator(`li[data-id="${b.body.lane.id}"] > .row a[data-verdict-link="${cid}"] [data-stale]`)
      .waitFor(WAIT)
    await w.page.locator('[data-run="r1"] [data-count="stale"]').filter({ hasText: '1 stale' }).waitFor(WAIT)
    await shot(w, 'deck-stale-verdict.png')
  },
)

pages(
  'stop from the conversation page: the lane stops, and its composer says why it can no longer take a message',
  async (w) => {
    const l = await launch(w, { key: 'hold', role: 'play', prompt: `echo holding\n${w.g.wait('hold')}` })
    const id = l.body.lane.id
    await w.page.goto(`${w.api.base}/conv/${id}`)
    await w.page.locator('#stop').waitFor({ state: 'visible', ...WAIT })
    assert.not.ok(await w.page.isDisabled('#message'), 'a live lane takes messages')
    await w.page.click('#stop')
    await w.page.click('#confirm-go')
    await w.page.locator('#status').filter({ hasText: 'stopped: stopped' }).waitFor(WAIT)
    await w.page.locator('#facts [data-activity="stopped"]').waitFor(WAIT)
    await w.page
      .locator('#composer-reason')
      .filter({ hasText: `conv ${id} (r1-hold-play-i1) is stopped; the message would not reach it` })
      .waitFor(WAIT)
    await w.page.locator('#stop').waitFor({ state: 'hidden', ...WAIT })
    await shot(w, 'conv-stopped.png')
    w.g.open('hold')
  },
)

pages(
  "the builder's change against its base: loaded on demand, stat and patch, capped with a clear more",
  async (w) => {
    const big = await launch(w, {
      key: 'big',
      role: 'builder',
      prompt:
        'seq 1 60000 > big.txt\ngit add big.txt\ngit commit -qm "big file"\necho small > note.txt\ngit add note.txt',
    })
    const id = big.body.lane.id
    await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.activity === 'stopped', 'the big builder to end')
    await w.page.goto(`${w.api.base}/conv/${id}`)
    await w.page.locator('#diff-panel').waitFor({ state: 'visible', ...WAIT })
    assert.is(await w.page.locator('[data-diff-patch]').count(), 0, 'nothing loaded before it is asked for')
    await w.page.click('#diff-load')
    const stat = w.page.locator('[data-diff-stat]')
    await stat.waitFor(WAIT)
    assert.match((await stat.textContent())!, /big\.txt\s+\|\s+60000 \+/)
    assert.match((await stat.textContent())!, /note\.txt\s+\|\s+1 \+/)
    assert.match((await w.page.locator('.more').textContent())!, /^showing 196 KB of \d+ KB more$/)
    assert.match((await w.page.locator('[data-diff-patch]').textContent())!, '+1\n+2\n')
    await shot(w, 'conv-diff-capped.png')
    await w.page.click('#diff-more')
    await w.page.locator('.more').waitFor({ state: 'detached', ...WAIT })
    assert.match((await w.page.locator('[data-diff-patch]').textContent())!, '+60000\n')
  },
)

/** Each payload, run, would set window.__pwned; markdown tricks would make a link that runs script. */
const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '</script><script>window.__pwned=2</script>',
  '[click me](javascript:window.__pwned=3)',
  '<a href="javascript:window.__pwned=4">link</a>',
  '"><svg onload=window.__pwned=5>',
  '![img](x" onerror="window.__pwned=6)',
  '`<b>code</b>` **<i onmouseover=window.__pwned=7>bold</i>** [x](data:text/html,<script>window.__pwned=8</script>)',
]
const ALL = PAYLOADS.join(' ')

/** Nothing ran, no element a payload could make exists, every link goes to the deck or to http(s). */
async function assertInert(w: World, where: string) {
  assert.is(
    await w.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
    undefined,
    `${where}: no payload ran`,
  )
  assert.equal(w.dialogs, [], `${where}: no dialog opened`)
  assert.is(
    await w.page
      .locator('main img, main svg, main iframe, main object, main embed, main script, main i, main b')
      .count(),
    0,
    `${where}: no markup from the payloads`,
  )
  const hrefs = await w.page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!))
  for (const href of hrefs) assert.ok(/^(\/([a-z]|$)|https?:\/\/)/.test(href), `${where}: link ${href}`)
  assert.is(await w.page.locator('[onerror], [onload], [onmouseover]').count(), 0, `${where}: no handler attribute`)
}

pages(
  'injection: hostile text through every field (title, model, brief, transcript, report body, verdict file) never ' +
    'becomes markup or script',
  async (w) => {
    const verdict = JSON.stringify({ defects: PAYLOADS.map((p) => ({ defect: p })) })
    const script =
      `# ${PAYLOADS[0]}\necho '${PAYLOADS.map((p) => p.replace(/'/g, '')).join("'\necho '")}'\ncat > ` +
      `verdict.json <<'EOF'\n${verdict}\nEOF\nsvc lane report --stdin --verdict DEFECTS --verdict-file verdict.json ` +
      `<<'EOF'\n# ${PAYLOADS[1]}\n\n${PAYLOADS.map((p) => `- ${p}`).join('\n')}\n\n${ALL}\nEOF\nrm verdict.json\n`
    const v = await launch(w, {
      key: 'x',
      role: 'verifier',
      title: `rtl\u202eX\x1b[2J ${ALL}`.slice(0, 200),
      model: PAYLOADS[0],
      prompt: script,
    })
    assert.is(v.status, 201, JSON.stringify(v.body))
    const id = v.body.lane.id
    await until(async () => (await w.api.get(`/api/lanes/${id}`)).body.verdict, 'the verifier to file its verdict')

    await w.page.goto(`${w.api.base}/conv/${id}`)
    await w.page.locator('[data-defect]').first().waitFor(WAIT)
    assert.equal(await w.page.locator('[data-defect]').allTextContents(), PAYLOADS, 'the defects, as text')
    assert.match((await w.page.locator('#title').textContent())!, PAYLOADS[0])
    assert.match(
      (await w.page.locator('#title').textContent())!,
      'rtl\\u202eX\\x1b[2J <img',
      'control and bidirectional characters are shown as escapes',
    )
    await w.page.locator('#transcript [data-kind="stdout"]').filter({ hasText: 'window.__pwned=2' }).waitFor(WAIT)
    const body = w.page.locator('[data-report-body]')
    assert.match((await body.locator('h3').textContent())!, PAYLOADS[1])
    assert.is(await body.locator('li').count(), PAYLOADS.length)
    assert.match(
      (await body.textContent())!,
      '[click me](javascript:window.__pwned=3)',
      'a javascript: link stays text',
    )
    await w.page.click('#contract summary:has-text("Brief")')
    await w.page.click('#contract summary:has-text("Contract")')
    await w.page.hover('[data-report-body]')
    await shot(w, 'injection-conv.png')
    await assertInert(w, 'the conversation page')

    for (const [path, where] of [
      ['/', 'the Command Deck'],
      ['/agents', 'the Agents page'],
    ]) {
      await w.page.goto(`${w.api.base}${path}`)
      await w.page.locator(`li[data-id="${id}"] > .row .name`).filter({ hasText: PAYLOADS[0] }).waitFor(WAIT)
      assert.match(
        (await w.page.locator(`li[data-id="${id}"] > .row`).textContent())!,
        PAYLOADS[0],
        `${where}: the model, as text`,
      )
      if (path === '/agents') await w.page.fill('#search', '<img')
      await shot(w, `injection-${path === '/' ? 'deck' : 'agents'}.png`)
      await assertInert(w, where)
    }
    const served = await w.page.goto(`${w.api.base}/conv/%3C%2Fscript%3E%3Cscript%3Ewindow.__pwned%3D9%3C%2Fscript%3E`)
    assert.is(served!.status(), 200)
    await w.page.locator('#status').filter({ hasText: 'is not a conversation id' }).waitFor(WAIT)
    await assertInert(w, 'a page for a hostile reference')
  },
)

pages.run()
