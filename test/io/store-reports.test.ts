import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { rejection } from '../helpers/home.js'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Store } from '../../kernel/io/store.js'
import { convFiles } from '../../kernel/io/home.js'
import { SvcError } from '../../kernel/domain/errors.js'
import { convDir, freshHome, newConv, removeHomes } from './store-kit.js'

// The reports of the store (kernel/io/store.ts): sequence numbers and times, concurrent appends, persistence, a broken
// reports file, a read racing a write. Records are in store.

test.after(removeHomes)

test('appendReport gives seq 1, 2, 3 with strictly increasing times', async () => {
  const store = await Store.open(freshHome())
  await newConv(store, 'alpha')
  const r1 = await store.appendReport('alpha', { status: 'blocked', body: 'BLOCKED one' })
  const r2 = await store.appendReport('alpha', { status: 'done', body: 'two', head: 'abc', branch: 'r/k' })
  const r3 = await store.appendReport('alpha', { status: 'failed', body: 'three' })
  assert.equal([r1.seq, r2.seq, r3.seq], [1, 2, 3])
  assert.ok(r1.at < r2.at && r2.at < r3.at, `${r1.at} ${r2.at} ${r3.at}`)
  assert.is(r2.head, 'abc')
  assert.is(r2.branch, 'r/k')
  const all = await store.reports('alpha')
  assert.equal(
    all.map((r) => r.seq),
    [1, 2, 3],
  )
  assert.equal(
    all.map((r) => r.body),
    ['BLOCKED one', 'two', 'three'],
  )
})

test('appendReport called concurrently: seqs 1..n, strictly increasing times, across names too', async () => {
  const store = await Store.open(freshHome())
  await newConv(store, 'alpha')
  await newConv(store, 'beta')
  const calls: Promise<{ name: string; seq: number; at: number }>[] = []
  for (let i = 0; i < 20; i++) {
    const name = i % 2 ? 'beta' : 'alpha'
    calls.push(
      store.appendReport(name, { status: 'done', body: `b${i}` }).then((r) => ({ name, seq: r.seq, at: r.at })),
    )
  }
  const got = await Promise.all(calls)
  for (const name of ['alpha', 'beta']) {
    const mine = got.filter((g) => g.name === name).sort((a, b) => a.seq - b.seq)
    assert.equal(
      mine.map((g) => g.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      name,
    )
    for (let i = 1; i < mine.length; i++) assert.ok(mine[i].at > mine[i - 1].at, `${name}: at increases with seq`)
    const stored = await store.reports(name)
    assert.equal(
      stored.map((r) => r.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    )
  }
  // every report of the store has its own time: the run cursor orders them totally
  assert.is(new Set(got.map((g) => g.at)).size, got.length)
})

test('reports persist across reopen, and later reports come after them', async () => {
  const home = freshHome()
  const s1 = await Store.open(home)
  await newConv(s1, 'alpha')
  await s1.appendReport('alpha', { status: 'done', body: 'one' })
  const last = await s1.appendReport('alpha', { status: 'done', body: 'two', verdict: 'PASS', defects: 0 })
  const s2 = await Store.open(home)
  const stored = await s2.reports('alpha')
  assert.equal(
    stored.map((r) => [r.seq, r.body]),
    [
      [1, 'one'],
      [2, 'two'],
    ],
  )
  assert.is(stored[1].verdict, 'PASS')
  assert.is(stored[1].defects, 0)
  assert.is(stored[1].at, last.at)
  const r3 = await s2.appendReport('alpha', { status: 'done', body: 'three' })
  assert.is(r3.seq, 3)
  assert.ok(r3.at > last.at)
  const file = join(convDir(home, 'alpha'), 'reports.json')
  assert.is(JSON.parse(readFileSync(file, 'utf8')).reports.length, 3)
  assert.is(statSync(file).mode & 0o777, 0o600)
})

test('reports of a conversation with none is an empty list', async () => {
  const store = await Store.open(freshHome())
  await newConv(store, 'alpha')
  assert.equal(await store.reports('alpha'), [])
})

test('a broken reports file reads as no reports for its lane alone, is never appended to, and is named once', async () => {
  const home = freshHome()
  const lines: string[] = []
  const s = await Store.open(home, (_l, m) => lines.push(m))
  await newConv(s, 'alpha')
  await newConv(s, 'beta')
  await s.appendReport('beta', { status: 'done', body: 'ok' })
  const file = join(convDir(home, 'alpha'), 'reports.json')
  const text = JSON.stringify({ reports: [{ seq: 'one', at: 1, status: 'done', body: 'x' }] })
  writeFileSync(file, text)
  assert.equal(await s.reports('alpha'), [])
  assert.equal(await s.reports('alpha'), [])
  assert.is((await s.reports('beta')).length, 1, 'the other lane keeps its reports')
  const e = await rejection(s.appendReport('alpha', { status: 'done', body: 'y' }))
  assert.instance(e, SvcError)
  assert.ok(
    (e as Error).message.startsWith(`store file ${file} does not hold what it should (reports.0.seq: `),
    (e as Error).message,
  )
  assert.is(readFileSync(file, 'utf8'), text, 'untouched')
  assert.is(lines.length, 1, 'logged once')
  assert.equal([...s.badFiles.keys()], [file])
})

test('a report written while the reports are first read by another caller is seen by every later read', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const rec = await newConv(store, 'racer')
  for (let round = 0; round < 20; round++) {
    const fresh = await Store.open(home)
    // First access to the reports from two callers at once: a read and a write.
    const [, written] = await Promise.all([
      fresh.reports(rec.name),
      fresh.appendReport(rec.name, { status: 'blocked', body: `BLOCKED ${round}` }),
    ])
    const seen = await fresh.reports(rec.name)
    assert.ok(
      seen.some((r) => r.seq === written.seq),
      `round ${round}: the written report is visible`,
    )
  }
})

test('a report is shown only once written: one whose write fails is never seen, nor a later one before it', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  await newConv(store, 'alpha')
  await newConv(store, 'beta')
  assert.equal(await store.reports('alpha'), [])
  // alpha's reports file is now a directory with a file in it: its next write cannot replace it.
  mkdirSync(convFiles(home, 'alpha').reports)
  writeFileSync(join(convFiles(home, 'alpha').reports, 'in-the-way'), '')
  let settled = false
  const failing = store.appendReport('alpha', { status: 'done', body: 'never written' }).finally(() => (settled = true))
  failing.catch(() => {})
  // beta's report comes after alpha's: it is not shown while alpha's could still come before it.
  const later = store.appendReport('beta', { status: 'done', body: 'written' })
  const seen: string[] = []
  while (!settled) {
    for (const name of ['alpha', 'beta']) for (const r of await store.reports(name)) seen.push(`${name}: ${r.body}`)
    await new Promise((r) => setImmediate(r))
  }
  await rejection(failing)
  assert.not.ok(seen.includes('alpha: never written'), 'a report whose write failed was shown')
  assert.not.ok(seen.includes('beta: written'), 'a later report was shown while an earlier one was being written')
  await later
  assert.equal(
    (await store.reports('beta')).map((r) => r.body),
    ['written'],
  )
  assert.equal(await store.reports('alpha'), [])
})

test.run()
