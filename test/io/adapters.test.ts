import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { realFiles, realIds } from '../../kernel/io/adapters.js'
import { rejection, scratchDir } from '../helpers/home.js'

// The real file and id adapters answer as the node calls the services made before them did: what is absent reads
// as absent (a dangling symlink is there), a removal without force of what is not there fails.

const BASE = scratchDir('io-adapters')
mkdirSync(BASE, { recursive: true })
test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('stat: a file, a directory, nothing', () => {
  const file = join(BASE, 'f')
  writeFileSync(file, 'abc')
  assert.equal(
    { ...realFiles.stat(file)!, ino: 0, mtimeMs: 0 },
    { isFile: true, isDirectory: false, ino: 0, size: 3, mtimeMs: 0 },
  )
  assert.is(realFiles.stat(BASE)!.isDirectory, true)
  assert.is(realFiles.stat(join(BASE, 'none')), undefined)
})

test('a dangling symlink: there as an entry, not as a path, and its target is read', () => {
  const link = join(BASE, 'dangling')
  symlinkSync(join(BASE, 'gone'), link)
  assert.equal(
    [realFiles.entryExists(link), realFiles.exists(link), realFiles.readlink(link)],
    [true, false, join(BASE, 'gone')],
  )
  assert.is(realFiles.entryExists(join(BASE, 'none')), false)
  assert.is(realFiles.entryExists(join(BASE, 'f', 'under-a-file')), false)
})

test('entries name directories; removeTree fails on nothing unless forced', async () => {
  mkdirSync(join(BASE, 'tree', 'sub'), { recursive: true })
  writeFileSync(join(BASE, 'tree', 'x'), '')
  const names = (await realFiles.entries(join(BASE, 'tree'))).sort((a, b) => a.name.localeCompare(b.name))
  assert.equal(names, [
    { name: 'sub', isDirectory: true },
    { name: 'x', isDirectory: false },
  ])
  assert.equal(realFiles.entriesSync(join(BASE, 'tree')).length, 2)
  await realFiles.removeTree(join(BASE, 'tree'))
  assert.is(realFiles.exists(join(BASE, 'tree')), false)
  assert.match((await rejection(realFiles.removeTree(join(BASE, 'tree')))).message, 'ENOENT')
  await realFiles.removeTree(join(BASE, 'tree'), { force: true })
})

test('ids: tokens of the length asked, uuids, sha256 in hex', () => {
  assert.match(realIds.token(32), /^[A-Za-z0-9_-]{43}$/)
  assert.match(realIds.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.is(realIds.sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
})

test.run()
