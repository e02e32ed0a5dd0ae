import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { brokenRecords } from '../helpers/broken-records.js'
import { rejection, scratchDir } from '../helpers/home.js'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { Store } from '../../kernel/io/store.js'
import { SvcError } from '../../kernel/domain/errors.js'
import { WRITE_ONCE_FIELDS, type ConversationRecord } from '../../kernel/domain/conversation.js'

const BASE = scratchDir('io-store')
let n = 0
/** A fresh service home for one test. */
function freshHome(): string {
  const dir = join(BASE, `h${++n}`)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}
const agents = (home: string) => join(home, 'agents')
const convDir = (home: string, name: string) => join(home, 'agents', `conv-${name}`)
const fallback = (id: string, attempt: number) => `c${id}-${attempt}`

function record(id: string, name: string, extra: Partial<ConversationRecord> = {}): ConversationRecord {
  return { id, name, createdAt: 1_700_000_000_000 + Number(id), harness: 'none', cwd: '/somewhere', ...extra }
}


/** Create a conversation through the store the way the kernel does: reserve, then create. */
async function newConv(store: Store, name: string | undefined, extra: Partial<ConversationRecord> = {}) {
  const r = await store.reserve(name, fallback)
  return store.create(record(r.id, r.name, extra))
}

test.after(() => {
  rmSync(BASE, { recursive: true, force: true })
})

test('the test home lies under the home directory, not /tmp', () => {
  assert.ok(BASE.startsWith(homedir()))
  assert.not.ok(BASE.startsWith('/tmp'))
})

test('Store.open on an empty home', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  assert.is(store.size, 0)
  assert.equal(store.all(), [])
  assert.equal(store.staleTemps, [])
  assert.equal(store.orphanDirs, [])
  assert.is(store.get('1'), undefined)
  assert.is(store.getByName('x'), undefined)
  assert.ok(statSync(agents(home)).isDirectory(), 'agents/ created')
})

test('reserve gives increasing ids and creates the directory exclusively', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const a = await store.reserve('alpha', fallback)
  assert.equal(a, { id: '1', name: 'alpha' })
  assert.ok(statSync(convDir(home, 'alpha')).isDirectory())
  const b = await store.reserve(undefined, fallback)
  assert.equal(b, { id: '2', name: 'c2-0' })
  assert.ok(existsSync(convDir(home, 'c2-0')))
  // a preferred name already reserved is a conflict
  const e = await rejection(store.reserve('alpha', fallback))
  assert.instance(e, SvcError)
  assert.is((e as SvcError).code, 'conflict')
})

test('reserve skips fallback names that are taken', async () => {
  const home = freshHome()
  mkdirSync(convDir(home, 'c1-0'), { recursive: true }) // a leftover directory (no record)
  const store = await Store.open(home)
  const r = await store.reserve(undefined, fallback)
  assert.is(r.id, '1')
  assert.is(r.name, 'c1-1')
})

test('reserve + create, then get and getByName', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const r = await store.reserve('alpha', fallback)
  const rec = record(r.id, r.name, { title: 'first', model: 'm1' })
  const back = await store.create(rec)
  assert.equal(back, rec)
  assert.equal(store.get(r.id), rec)
  assert.equal(store.getByName('alpha'), rec)
  assert.is(store.size, 1)
  assert.equal(store.all(), [rec])
  const file = join(convDir(home, 'alpha'), 'record.json')
  assert.equal(JSON.parse(readFileSync(file, 'utf8')), rec)
  assert.is(statSync(file).mode & 0o777, 0o600)
  // no temp file left behind
  assert.equal(readdirSync(convDir(home, 'alpha')), ['record.json'])
})

test('reopen sees every record, and ids continue after the highest', async () => {
  const home = freshHome()
  const s1 = await Store.open(home)
  const a = await newConv(s1, 'alpha', { title: 'A' })
  const b = await newConv(s1, 'beta', { parent: a.id })
  const c = await newConv(s1, undefined)
  const s2 = await Store.open(home)
  assert.is(s2.size, 3)
  assert.equal(s2.get(a.id), a)
  assert.equal(s2.getByName('beta'), b)
  assert.equal(s2.get(c.id), c)
  assert.equal(s2.all().map((r) => r.id).sort(), ['1', '2', '3'])
  const d = await s2.reserve('delta', fallback)
  assert.is(d.id, '4')
})

test('update changes mutable fields and persists them', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const a = await newConv(store, 'alpha')
  const out = await store.update(a.id, { title: 'renamed', ended: { at: 5, source: 'stop', detail: 'by user' } })
  assert.is(out.title, 'renamed')
  assert.equal(store.get(a.id)?.ended, { at: 5, source: 'stop', detail: 'by user' })
  const again = await Store.open(home)
  assert.is(again.get(a.id)?.title, 'renamed')
  assert.is(again.get(a.id)?.name, 'alpha')
})

test("update refuses every write-once field with 'forbidden' and leaves the file unchanged", async () => {
  const home = freshHome()
  const store = await Store.open(home)
  await newConv(store, 'root')
  const lane = await newConv(store, 'lane1', {
    parent: '1',
    lane: { run: 'r1', key: 'k', role: 'builder', dir: 'r1-k', root: '/lanes', iteration: 1 },
  })
  const file = join(convDir(home, 'lane1'), 'record.json')
  const before = readFileSync(file)
  const inMemory = JSON.stringify(store.get(lane.id))
  const patches: Partial<ConversationRecord>[] = [
    { parent: '99' },
    { lane: { run: 'r2', key: 'k', role: 'critic', dir: 'x', root: '/lanes', iteration: 2 } },
    { name: 'other' },
    { id: '77' },
    { createdAt: 1 },
    { successor: 'fork' },
    { title: 'allowed but mixed', parent: '99' },
    { parent: undefined },
    { lane: undefined },
  ]
  assert.ok(WRITE_ONCE_FIELDS.includes('parent'))
  assert.ok(WRITE_ONCE_FIELDS.includes('lane'))
  for (const patch of patches) {
    const e = await rejection(store.update(lane.id, patch))
    assert.instance(e, SvcError, JSON.stringify(patch))
    assert.is((e as SvcError).code, 'forbidden', JSON.stringify(patch))
    assert.ok(readFileSync(file).equals(before), `file unchanged after ${JSON.stringify(patch)}`)
    assert.is(JSON.stringify(store.get(lane.id)), inMemory, `record unchanged after ${JSON.stringify(patch)}`)
  }
  for (const f of WRITE_ONCE_FIELDS) {
    const e = await rejection(store.update(lane.id, { [f]: undefined } as Partial<ConversationRecord>))
    assert.is((e as SvcError).code, 'forbidden', f)
  }
  assert.ok(readFileSync(file).equals(before))
  assert.equal(readdirSync(convDir(home, 'lane1')), ['record.json'])
})

test('update of an unknown conversation is not_found', async () => {
  const store = await Store.open(freshHome())
  const e = await rejection(store.update('404', { title: 'x' }))
  assert.instance(e, SvcError)
  assert.is((e as SvcError).code, 'not_found')
})

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
  assert.equal(all.map((r) => r.seq), [1, 2, 3])
  assert.equal(all.map((r) => r.body), ['BLOCKED one', 'two', 'three'])
})

test('appendReport called concurrently: seqs 1..n, strictly increasing times, across names too', async () => {
  const store = await Store.open(freshHome())
  await newConv(store, 'alpha')
  await newConv(store, 'beta')
  const calls: Promise<{ name: string; seq: number; at: number }>[] = []
  for (let i = 0; i < 20; i++) {
    const name = i % 2 ? 'beta' : 'alpha'
    calls.push(store.appendReport(name, { status: 'done', body: `b${i}` }).then((r) => ({ name, seq: r.seq, at: r.at })))
  }
  const got = await Promise.all(calls)
  for (const name of ['alpha', 'beta']) {
    const mine = got.filter((g) => g.name === name).sort((a, b) => a.seq - b.seq)
    assert.equal(mine.map((g) => g.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], name)
    for (let i = 1; i < mine.length; i++) assert.ok(mine[i].at > mine[i - 1].at, `${name}: at increases with seq`)
    const stored = await store.reports(name)
    assert.equal(stored.map((r) => r.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
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
  assert.equal(stored.map((r) => [r.seq, r.body]), [[1, 'one'], [2, 'two']])
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

test('item 12: every kind of broken record.json is refused alone, naming the file, untouched; the others load and ids never become NaN', async () => {
  for (const [what, content] of brokenRecords('1')) {
    const home = freshHome()
    const s1 = await Store.open(home)
    const good = await newConv(s1, 'good')
    const file = join(convDir(home, 'x-broken'), 'record.json')
    mkdirSync(convDir(home, 'x-broken'))
    const bytes = content('x-broken')
    writeFileSync(file, bytes)
    const mtime = statSync(file).mtimeMs
    const lines: string[] = []
    const s2 = await Store.open(home, (level, message) => lines.push(`${level} ${message}`))
    assert.equal(s2.all(), [good], `${what}: the good record loads, the broken one is left out`)
    assert.is(lines.length, 1, `${what}: one log line`)
    assert.ok(lines[0].startsWith(`error store file ${file} `), `${what}: the line names the file: ${lines[0]}`)
    assert.not.match(lines[0], '\n')
    assert.equal([...s2.badFiles.keys()], [file], what)
    const next = await s2.reserve(undefined, fallback)
    assert.match(next.id, /^[1-9][0-9]*$/, `${what}: the next id is a number, got ${next.id}`)
    assert.ok(Number(next.id) > Number(good.id), what)
    assert.ok(readFileSync(file).equals(Buffer.from(bytes)), `${what}: byte-for-byte untouched`)
    assert.is(statSync(file).mtimeMs, mtime)
    assert.equal(readdirSync(convDir(home, 'x-broken')), ['record.json'], `${what}: nothing written beside it`)
  }
})

test('item 12: a record.json that is a pipe is refused without being read (the load never blocks)', async () => {
  const home = freshHome()
  const good = await newConv(await Store.open(home), 'good')
  mkdirSync(convDir(home, 'x-pipe'))
  const file = join(convDir(home, 'x-pipe'), 'record.json')
  assert.is(spawnSync('mkfifo', [file]).status, 0)
  const s = await Store.open(home)
  assert.equal(s.all(), [good])
  assert.equal([...s.badFiles], [[file, 'cannot be read (not a regular file)']])
})

test('item 12: a refused record keeps its well-formed id taken, so a repaired record never shares it', async () => {
  const home = freshHome()
  await newConv(await Store.open(home), 'good')
  mkdirSync(convDir(home, 'broken'))
  writeFileSync(join(convDir(home, 'broken'), 'record.json'), JSON.stringify({ ...record('9', 'broken'), harness: 'vim' }))
  const s = await Store.open(home)
  assert.is((await s.reserve(undefined, fallback)).id, '10')
})

test('item 12: a broken reports file reads as no reports for its lane alone, is never appended to, and is named once', async () => {
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
  assert.ok((e as Error).message.startsWith(`store file ${file} does not hold what it should (reports.0.seq: `), (e as Error).message)
  assert.is(readFileSync(file, 'utf8'), text, 'untouched')
  assert.is(lines.length, 1, 'logged once')
  assert.equal([...s.badFiles.keys()], [file])
})

test('stale temp files are found by the sweep and removed by removeStaleTemps', async () => {
  const home = freshHome()
  const s1 = await Store.open(home)
  await newConv(s1, 'alpha')
  const dir = convDir(home, 'alpha')
  const t1 = join(dir, '.record.json.123.4.tmp')
  const t2 = join(dir, '.reports.json.99999.17.tmp')
  const keep = join(dir, 'lane-brief.md')
  writeFileSync(t1, '{"half')
  writeFileSync(t2, '')
  writeFileSync(keep, 'brief')
  const s2 = await Store.open(home)
  assert.equal(s2.staleTemps, [], 'temp files are found by the sweep after start, not by the load')
  await s2.sweep()
  assert.equal([...s2.staleTemps].sort(), [t1, t2].sort())
  assert.is(s2.getByName('alpha')?.id, '1', 'the record still loads')
  const removed = await s2.removeStaleTemps()
  assert.equal([...removed].sort(), [t1, t2].sort())
  assert.not.ok(existsSync(t1))
  assert.not.ok(existsSync(t2))
  assert.ok(existsSync(keep), 'other files are kept')
  assert.ok(existsSync(join(dir, 'record.json')))
  assert.equal(s2.staleTemps, [])
  assert.equal(await s2.removeStaleTemps(), [])
})

test('a conv directory without record.json is listed in orphanDirs and not loaded', async () => {
  const home = freshHome()
  const s1 = await Store.open(home)
  await newConv(s1, 'alpha')
  const orphan = convDir(home, 'orphan')
  mkdirSync(orphan, { recursive: true })
  writeFileSync(join(orphan, 'lane-brief.md'), 'x')
  mkdirSync(join(agents(home), 'not-a-conv'), { recursive: true })
  const s2 = await Store.open(home)
  assert.equal(s2.orphanDirs, [orphan])
  assert.is(s2.size, 1)
  assert.is(s2.getByName('orphan'), undefined)
  assert.ok(existsSync(join(orphan, 'lane-brief.md')), 'an orphan is reported, not removed')
})

test('release() frees a reserved name whose record was never written', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const r = await store.reserve('beta', fallback)
  // the caller removes the reserved directory, then gives the name back (conversations.ts does both)
  rmSync(convDir(home, 'beta'), { recursive: true })
  store.release('beta')
  const again = await store.reserve('beta', fallback)
  assert.is(again.name, 'beta')
  assert.is.not(again.id, r.id)
})

test('without release() a reserved name stays taken', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  await store.reserve('gamma', fallback)
  rmSync(convDir(home, 'gamma'), { recursive: true })
  const e = await rejection(store.reserve('gamma', fallback))
  assert.is((e as SvcError).code, 'conflict')
})

test('release() does not free the name of a created conversation', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const a = await newConv(store, 'alpha')
  store.release('alpha')
  assert.equal(store.getByName('alpha'), a)
  const e = await rejection(store.reserve('alpha', fallback))
  assert.is((e as SvcError).code, 'conflict')
})

test('a report written while the reports are first read by another caller is seen by every later read', async () => {
  const home = freshHome()
  const store = await Store.open(home)
  const rec = await newConv(store, 'racer')
  for (let round = 0; round < 20; round++) {
    const fresh = await Store.open(home)
    // First access to the reports from two callers at once: a read and a write.
    const [, written] = await Promise.all([fresh.reports(rec.name), fresh.appendReport(rec.name, { status: 'blocked', body: `BLOCKED ${round}` })])
    const seen = await fresh.reports(rec.name)
    assert.ok(seen.some((r) => r.seq === written.seq), `round ${round}: the written report is visible`)
  }
})

test.run()
