import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { watchAgents, watchWorktrees } from '../../kernel/io/watch.js'
import { scratchDir, until } from '../helpers/home.js'

// The file watchers on real directories: a write that comes right after a reported one is still reported (the
// watcher below them keeps quiet about a file for a moment after each change it reports), and a file the kernel
// never reads again reports nothing.

const BASE = scratchDir('io-watch')
mkdirSync(BASE, { recursive: true })
test.after(() => rmSync(BASE, { recursive: true, force: true }))

/** A write as the store makes one: a temp file renamed over the file. */
const writeAtomic = (file: string, text: string) => {
  writeFileSync(`${file}.tmp`, text)
  renameSync(`${file}.tmp`, file)
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('a conversation file written again at once after a reported write is reported again, read with the new text', async () => {
  const dir = join(BASE, 'agents', 'conv-a')
  mkdirSync(dir, { recursive: true })
  const state = join(dir, 'state.json')
  writeAtomic(state, 'v0')
  const read: string[] = []
  const w = watchAgents([dir], (e) => {
    assert.is(e.name, 'a')
    if (e.file !== 'state.json') return read.push(e.file)
    read.push(readFileSync(state, 'utf8'))
    // The second write inside the report of the first: well within the quiet moment after it.
    if (read.at(-1) === 'v1') writeAtomic(state, 'v2')
  })
  try {
    await w.ready
    writeAtomic(state, 'v1')
    await until(() => read.at(-1) === 'v2', `a report read after the second write (reads: ${read.join(', ')})`, 5_000)
    // Files the kernel does not read again are never reported, nor is the temp file of a write.
    const before = read.length
    writeFileSync(join(dir, 'transcript.jsonl'), 'line\n')
    writeFileSync(join(dir, 'transcript.jsonl'), 'line\nline\n')
    writeFileSync(join(dir, 'runner.log'), 'x\n')
    await pause(300)
    assert.equal(read.slice(before), [], 'nothing reported for the transcript or the log')
  } finally {
    await w.close()
  }
})

test('a worktree file written again at once after a reported change is reported again; a lock file is not', async () => {
  const wt = join(BASE, 'wt')
  mkdirSync(wt, { recursive: true })
  const file = join(wt, 'notes.txt')
  const read: string[] = []
  const w = watchWorktrees(
    (dir) => {
      assert.is(dir, wt)
      read.push(readFileSync(file, 'utf8'))
      if (read.at(-1) === 'v1') writeFileSync(file, 'v2')
    },
    (e) => assert.unreachable(e.message),
  )
  try {
    w.add(wt, undefined)
    // Its watch is set up in the background: written until the first change is heard.
    await until(() => (writeFileSync(file, 'v0'), read.length > 0), 'the worktree watched', 5_000)
    await pause(100)
    writeFileSync(file, 'v1')
    await until(() => read.at(-1) === 'v2', `a report read after the second write (reads: ${read.join(', ')})`, 5_000)
    await pause(100)
    const before = read.length
    writeFileSync(join(wt, 'index.lock'), 'x')
    rmSync(join(wt, 'index.lock'))
    await pause(300)
    assert.equal(read.slice(before), [], 'nothing reported for a lock file')
  } finally {
    await w.close()
  }
})

test.run()
