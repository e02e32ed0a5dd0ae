import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { scratchDir } from '../helpers/home.js'
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  appendLine,
  createFileOnce,
  isTempName,
  publishFileOnce,
  readTextOrUndefined,
  tempOwner,
  writeFileAtomic,
  writeFileAtomicSync,
} from '../../kernel/io/atomic-file.js'

const BASE = scratchDir('io-atomic')
let n = 0
function freshDir(): string {
  const dir = join(BASE, `d${++n}`)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}
const mode = (p: string) => statSync(p).mode & 0o777

test.after(() => {
  rmSync(BASE, { recursive: true, force: true })
})

test('isTempName recognises the temp names of an interrupted write only', () => {
  assert.ok(isTempName('.record.json.123.4.tmp'))
  assert.ok(isTempName('.state.json.1.1.tmp'))
  assert.not.ok(isTempName('record.json'))
  assert.not.ok(isTempName('record.json.123.4.tmp'))
  assert.not.ok(isTempName('.record.json.tmp'))
  assert.not.ok(isTempName('.record.json.x.4.tmp'))
  assert.not.ok(isTempName('lane-brief.md'))
})

test('writeFileAtomic creates a file with mode 0600 and leaves no temp file', async () => {
  const dir = freshDir()
  const p = join(dir, 'a.json')
  await writeFileAtomic(p, '{"v":1}\n')
  assert.is(readFileSync(p, 'utf8'), '{"v":1}\n')
  assert.is(mode(p), 0o600)
  assert.equal(readdirSync(dir), ['a.json'])
})

test('writeFileAtomic replaces content (longer then shorter) and leaves no temp files', async () => {
  const dir = freshDir()
  const p = join(dir, 'a.txt')
  await writeFileAtomic(p, 'first')
  await writeFileAtomic(p, 'a much longer second content')
  assert.is(readFileSync(p, 'utf8'), 'a much longer second content')
  await writeFileAtomic(p, 'x')
  assert.is(readFileSync(p, 'utf8'), 'x', 'no tail of the old content')
  assert.equal(readdirSync(dir), ['a.txt'])
})

test('writeFileAtomic replaces the inode: an existing 0644 file becomes 0600', async () => {
  const dir = freshDir()
  const p = join(dir, 'b.txt')
  writeFileSync(p, 'old')
  chmodSync(p, 0o644)
  const inoBefore = statSync(p).ino
  await writeFileAtomic(p, 'new')
  assert.is(readFileSync(p, 'utf8'), 'new')
  assert.is(mode(p), 0o600)
  assert.is.not(statSync(p).ino, inoBefore, 'renamed over, not written in place')
})

test('writeFileAtomic writes bytes and creates missing parent directories', async () => {
  const dir = freshDir()
  const p = join(dir, 'x', 'y', 'bin.dat')
  const bytes = new Uint8Array([0, 1, 2, 255, 10, 13])
  await writeFileAtomic(p, bytes)
  assert.ok(readFileSync(p).equals(Buffer.from(bytes)))
  assert.is(mode(join(dir, 'x')), 0o700)
})

test('writeFileAtomic: concurrent writers leave one complete content and no temp files', async () => {
  const dir = freshDir()
  const p = join(dir, 'c.txt')
  const contents = Array.from({ length: 10 }, (_, i) => `writer ${i} `.repeat(1000 + i))
  await Promise.all(contents.map((c) => writeFileAtomic(p, c)))
  assert.ok(contents.includes(readFileSync(p, 'utf8')))
  assert.equal(readdirSync(dir), ['c.txt'])
})

test('writeFileAtomicSync: same contract, synchronously', () => {
  const dir = freshDir()
  const p = join(dir, 'state.json')
  writeFileAtomicSync(p, 'one')
  writeFileAtomicSync(p, '2')
  assert.is(readFileSync(p, 'utf8'), '2')
  assert.is(mode(p), 0o600)
  assert.equal(readdirSync(dir), ['state.json'])
})

test('createFileOnce returns true, then false, and never overwrites', async () => {
  const dir = freshDir()
  const p = join(dir, 'lane-brief.md')
  assert.is(await createFileOnce(p, 'the brief'), true)
  assert.is(readFileSync(p, 'utf8'), 'the brief')
  assert.is(mode(p), 0o600)
  assert.is(await createFileOnce(p, 'another brief'), false)
  assert.is(readFileSync(p, 'utf8'), 'the brief')
  assert.equal(readdirSync(dir), ['lane-brief.md'], 'no temp files')
})

test('createFileOnce does not overwrite a file created by someone else', async () => {
  const dir = freshDir()
  const p = join(dir, 'kernel.json')
  writeFileSync(p, 'theirs')
  assert.is(await createFileOnce(p, 'mine'), false)
  assert.is(readFileSync(p, 'utf8'), 'theirs')
  assert.equal(readdirSync(dir), ['kernel.json'])
})

test('createFileOnce: 10 concurrent calls, exactly one wins and its content is complete', async () => {
  const dir = freshDir()
  const p = join(dir, 'once.txt')
  const contents = Array.from({ length: 10 }, (_, i) => `content of caller ${i}\n`.repeat(200))
  const results = await Promise.all(contents.map((c) => createFileOnce(p, c)))
  assert.is(results.filter(Boolean).length, 1, JSON.stringify(results))
  const winner = results.indexOf(true)
  assert.is(readFileSync(p, 'utf8'), contents[winner])
  assert.equal(readdirSync(dir), ['once.txt'])
})

test('createFileOnce creates missing parent directories', async () => {
  const dir = freshDir()
  const p = join(dir, 'a', 'b', 'f')
  assert.is(await createFileOnce(p, 'x'), true)
  assert.is(readFileSync(p, 'utf8'), 'x')
})

test('appendLine creates the file (0600) and appends lines, adding a newline only when missing', async () => {
  const dir = freshDir()
  const p = join(dir, 'transcript.jsonl')
  await appendLine(p, '{"a":1}')
  assert.is(readFileSync(p, 'utf8'), '{"a":1}\n')
  assert.is(mode(p), 0o600)
  await appendLine(p, '{"b":2}\n')
  await appendLine(p, '')
  assert.is(readFileSync(p, 'utf8'), '{"a":1}\n{"b":2}\n\n')
})

test('appendLine: concurrent appends keep every line whole', async () => {
  const dir = freshDir()
  const p = join(dir, 'inbox.jsonl')
  const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(100) }))
  await Promise.all(lines.map((l) => appendLine(p, l)))
  const got = readFileSync(p, 'utf8').split('\n')
  assert.is(got.pop(), '')
  assert.equal([...got].sort(), [...lines].sort())
})

test('readTextOrUndefined: missing file gives undefined, existing gives its text, other errors throw', () => {
  const dir = freshDir()
  assert.is(readTextOrUndefined(join(dir, 'nope')), undefined)
  writeFileSync(join(dir, 'yes'), 'hello')
  assert.is(readTextOrUndefined(join(dir, 'yes')), 'hello')
  assert.throws(() => readTextOrUndefined(dir))
})

test('publishFileOnce: what fill wrote under a temp name of this process gets the name, once; a failing fill or a taken name leaves no file', async () => {
  const dir = freshDir()
  const path = join(dir, 'parked-1.patch')
  let seen = ''
  assert.is(
    await publishFileOnce(path, async (tmp) => {
      seen = tmp
      writeFileSync(tmp, 'first\n')
    }),
    true,
  )
  assert.ok(isTempName(seen.slice(dir.length + 1)), seen)
  assert.is(tempOwner(seen.slice(dir.length + 1)), process.pid, 'swept by no kernel but a later one')
  assert.is(readFileSync(path, 'utf8'), 'first\n')
  assert.is(await publishFileOnce(path, async (tmp) => writeFileSync(tmp, 'second\n')), false, 'the name was taken')
  assert.is(readFileSync(path, 'utf8'), 'first\n', 'nothing replaced')
  const other = join(dir, 'parked-2.patch')
  let failed = ''
  try {
    await publishFileOnce(other, async (tmp) => {
      writeFileSync(tmp, 'half')
      throw new Error('the patch does not reproduce the worktree')
    })
  } catch (e) {
    failed = (e as Error).message
  }
  assert.is(failed, 'the patch does not reproduce the worktree')
  assert.equal(readdirSync(dir), ['parked-1.patch'], 'no temp file and no half file left')
})

test.run()
