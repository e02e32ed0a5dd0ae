import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { brokenRecords } from '../helpers/broken-records.js'
import { rejection } from '../helpers/home.js'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { Store } from '../../kernel/io/store.js'
import { SvcError } from '../../kernel/domain/errors.js'
import { WRITE_ONCE_FIELDS, type ConversationRecord } from '../../kernel/domain/conversation.js'
import { BASE, agents, convDir, fallback, freshHome, newConv, record, removeHomes } from './store-kit.js'

// The store of conversation records (kernel/io/store.ts): reserve and create, reads, updates and their write-once
// fields, broken records, stale temps, orphan directories, release. Reports are in store-reports.

test.after(removeHomes)

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
  assert.equal(
    s2
      .all()
      .map((r) => r.id)
      .sort(),
    ['1', '2', '3'],
  )
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

test('every kind of broken record.json is refused alone, naming the file, untouched; the others load and ids never become NaN', async () => {
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

test('a record.json that is a pipe is refused without being read (the load never blocks)', async () => {
  const home = freshHome()
  const good = await newConv(await Store.open(home), 'good')
  mkdirSync(convDir(home, 'x-pipe'))
  const file = join(convDir(home, 'x-pipe'), 'record.json')
  assert.is(spawnSync('mkfifo', [file]).status, 0)
  const s = await Store.open(home)
  assert.equal(s.all(), [good])
  assert.equal([...s.badFiles], [[file, 'cannot be read (not a regular file)']])
})

test('a refused record keeps its well-formed id taken, so a repaired record never shares it', async () => {
  const home = freshHome()
  await newConv(await Store.open(home), 'good')
  mkdirSync(convDir(home, 'broken'))
  writeFileSync(
    join(convDir(home, 'broken'), 'record.json'),
    JSON.stringify({ ...record('9', 'broken'), harness: 'vim' }),
  )
  const s = await Store.open(home)
  assert.is((await s.reserve(undefined, fallback)).id, '10')
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

test.run()
