import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readTranscriptPage } from '../../kernel/io/transcript-page.js'
import { scratchDir } from '../helpers/home.js'

const BASE = scratchDir('io-transcript')
mkdirSync(BASE, { recursive: true })
test.after(() => rmSync(BASE, { recursive: true, force: true }))

const entry = (n: number, text = `t${n}`) => JSON.stringify({ n, at: n, kind: 'stdout', text }) + '\n'
let files = 0
function file(content: string): string {
  const path = join(BASE, `t${++files}.jsonl`)
  writeFileSync(path, content)
  return path
}
const ns = (p: { entries: { n: number }[] }) => p.entries.map((e) => e.n)

const L = entry(1).length // every entry(n) for n < 10 has this length
const PAGE = 3 * L

test('a missing transcript is an empty page at the cursor given', async () => {
  assert.equal(await readTranscriptPage(join(BASE, 'none.jsonl')), { entries: [], cursor: 0, more: false })
  assert.equal(await readTranscriptPage(join(BASE, 'none.jsonl'), 40), { entries: [], cursor: 40, more: false })
})

test('the last page: the whole lines in its last bytes; a line the page boundary cuts is left out', async () => {
  const five = [1, 2, 3, 4, 5].map((n) => entry(n)).join('')
  const cases: [string, string, number | undefined, number[], number, boolean][] = [
    ['small file, whole', entry(1) + entry(2), undefined, [1, 2], 2 * L, false],
    ['page boundary on a line start', five, undefined, [3, 4, 5], 5 * L, false],
    ['page boundary inside a line', five + entry(6).slice(0, 5), undefined, [4, 5], 5 * L, false],
    ['from a cursor: at most a page, whole lines, more', five, 0, [1, 2, 3], 3 * L, true],
    ['from a cursor: the rest', five, 3 * L, [4, 5], 5 * L, false],
    ['a line still being written waits', entry(1) + entry(2).slice(0, 9), 0, [1], L, false],
    ['a cursor past the end stays at the end', entry(1), 99 * L, [], L, false],
    [
      'a line that is no entry is left out',
      entry(1) + '{"n":"x"}\n' + 'garbled\n' + entry(2),
      undefined,
      [1, 2],
      2 * L + 18,
      false,
    ],
    ['only a line being written, from the start', entry(1).slice(0, 9), undefined, [], 0, false],
  ]
  for (const [what, content, cursor, want, wantCursor, more] of cases) {
    const page = await readTranscriptPage(file(content), cursor, PAGE)
    assert.equal([ns(page), page.cursor, page.more], [want, wantCursor, more], what)
  }
})

test('a line longer than a page is skipped, the entries after it still come', async () => {
  const long = entry(1, 'y'.repeat(PAGE * 2))
  const path = file(long + entry(2))
  const seen: number[] = []
  let cursor = 0
  for (let i = 0; i < 10; i++) {
    const page = await readTranscriptPage(path, cursor, PAGE)
    seen.push(...ns(page))
    cursor = page.cursor
    if (!page.more) break
  }
  assert.equal(seen, [2])
  assert.equal(ns(await readTranscriptPage(path, undefined, PAGE)), [2])
})

test.run()
