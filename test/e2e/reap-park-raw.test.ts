import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { git } from '../helpers/home.js'
import { kernelApi } from './api-kit.js'
import { World, filesOf, gitEnv, treeOfPatch } from './lane-views-kit.js'
import { reapKit } from './reap-kit.js'

// `svc lane reap --park` keeps raw bytes (SPEC.md 4.1 reap step 4): work that git's filters and line-ending
// conversion hide from `git status` is refused without --park and parked byte for byte with it; the patch gives
// back the bytes on disk when applied with no filter, attribute or conversion in between.

let w: World
const { capture } = reapKit(() => w)
let n = 0

const BASE: Record<string, string> = {
  '.gitattributes': '*.nb filter=strip\n*.win text eol=crlf\n',
  'book.nb': 'cell 1\n',
  'dos.win': 'one\ntwo\n',
}

function write(dir: string, path: string, bytes: Buffer | string) {
  mkdirSync(dirname(join(dir, path)), { recursive: true })
  writeFileSync(join(dir, path), bytes)
}

test.before(async () => {
  w = await new World('park-raw').begin()
  for (const [p, c] of Object.entries(BASE)) write(w.checkout, p, c)
  // A clean filter that drops output lines, as notebook strippers do; the lanes share the checkout's config.
  git(w.checkout, 'config', 'filter.strip.clean', "sed '/^out:/d'")
  git(w.checkout, 'config', 'filter.strip.smudge', 'cat')
  // A submodule, from a repository of its own.
  const sub = join(w.h.home, 'sub-src')
  mkdirSync(sub)
  git(sub, 'init', '-q', '-b', 'main')
  write(sub, 'inner.txt', 'inner\n')
  git(sub, 'add', '-A')
  git(sub, 'commit', '-qm', 'inner')
  git(w.checkout, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub')
  git(w.checkout, 'add', '-A')
  git(w.checkout, 'commit', '-qm', 'a filter, line endings, a submodule')
  git(w.checkout, 'push', '-q', 'origin', 'main')
})
test.after(async () => {
  await w.stop()
})

/** A lane with no harness, its worktree at the branch's head; returns its name and directory. */
async function lane(): Promise<{ name: string; dir: string; key: string }> {
  const key = `k${n++}`
  return { ...(await w.idleLane(key)), key }
}

/** The hidden change is refused without --park (nothing changes), then parked: the kept ref holds the raw bytes,
 * and the patch applied to the ref's base in an index (no filter, no conversion) gives back the ref's tree. */
async function refusedThenParkedRaw(name: string, dir: string, key: string, path: string) {
  assert.is(git(dir, 'status', '--porcelain'), '', 'git status shows nothing')
  const bytes = readFileSync(join(dir, path))
  const before = await capture(name, dir, `r1/${key}`)
  const api = kernelApi(w.h)
  const refused = await api.post(`/api/lanes/${name}/reap`, { park: false })
  assert.is(refused.status, 409, JSON.stringify(refused.body))
  assert.is(
    refused.body.error.message,
    `refused: ${dir} has uncommitted changes (1 path, 1 of them hidden from git status: ${path}); commit them, or ` +
      `pass --park to save them to a patch`,
  )
  assert.equal(await capture(name, dir, `r1/${key}`), before, 'a refused reap changes nothing')
  const parked = await api.post(`/api/lanes/${name}/reap`, { park: true })
  assert.is(parked.status, 200, JSON.stringify(parked.body))
  assert.not.ok(existsSync(dir), 'the worktree is removed')
  const { patch, ref } = parked.body.parked
  assert.ok(readFileSync(patch).length > 0, 'the patch is not empty')
  assert.equal(execFileSync('git', ['cat-file', 'blob', `${ref}:${path}`], { cwd: w.checkout, env: gitEnv }), bytes)
  assert.is(await treeOfPatch(w.checkout, `${ref}^`, patch), git(w.checkout, 'rev-parse', `${ref}^{tree}`))
}

test('a clean filter that drops lines hides no work: refused without --park, parked as raw bytes with it', async () => {
  const { name, dir, key } = await lane()
  write(dir, 'book.nb', 'cell 1\nout: 42\n')
  git(dir, 'add', 'book.nb') // the filter stores the old blob: git sees nothing to commit
  await refusedThenParkedRaw(name, dir, key, 'book.nb')
})

test('line endings a conversion hides are work: CRLF turned to LF under text eol=crlf is refused, then parked raw', async () => {
  const { name, dir, key } = await lane()
  assert.is(readFileSync(join(dir, 'dos.win'), 'latin1'), 'one\r\ntwo\r\n', 'a checkout writes CRLF')
  write(dir, 'dos.win', 'one\ntwo\n')
  git(dir, 'add', 'dos.win')
  await refusedThenParkedRaw(name, dir, key, 'dos.win')
})

test('untouched files a conversion changes on checkout are no work: a lane that changed nothing else reaps clean', async () => {
  const { name, dir } = await lane()
  const files = filesOf(dir, false)
  assert.is(files['dos.win'], `file 644 ${Buffer.from('one\r\ntwo\r\n').toString('base64')}`)
  const r = await kernelApi(w.h).post(`/api/lanes/${name}/reap`, { park: false })
  assert.is(r.status, 200, JSON.stringify(r.body))
  assert.is(r.body.parked, undefined)
})

test('a checked-out submodule with work inside and at the top: --park is refused before anything is touched', async () => {
  const { name, dir, key } = await lane()
  git(dir, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '-q')
  write(dir, 'sub/inner.txt', 'edited inside\n')
  write(dir, 'top.txt', 'edited at the top\n')
  const before = await capture(name, dir, `r1/${key}`)
  const inner = filesOf(join(dir, 'sub'))
  for (const park of [true, false]) {
    const r = await kernelApi(w.h).post(`/api/lanes/${name}/reap`, { park })
    assert.is(r.status, 409, JSON.stringify(r.body))
    assert.is(
      r.body.error.message,
      `refused: ${dir} holds a checked-out submodule (sub) whose work a patch cannot carry; commit and push its ` +
        `work, run git submodule deinit --all in ${dir}, then reap again`,
    )
    assert.equal(await capture(name, dir, `r1/${key}`), before, 'nothing changed')
    assert.equal(filesOf(join(dir, 'sub')), inner, 'nothing changed in the submodule')
  }
})

/** The kernel's peak resident memory so far (VmHWM), in bytes. */
const peakRss = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

/** Bytes the kernel's own threads have read and written so far through any file, pipe or socket (rchar, wchar of
 * each thread: the process's total would count the programs it ran too). */
function carried(pid: number): { read: number; written: number } {
  const sum = { read: 0, written: 0 }
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8')
    sum.read += Number(/^rchar: (\d+)$/m.exec(io)![1])
    sum.written += Number(/^wchar: (\d+)$/m.exec(io)![1])
  }
  return sum
}

test('a 30 MB file is parked by git alone: no byte of the patch passes through the kernel, which keeps answering', async () => {
  const { name, dir, key } = await lane()
  const big = randomBytes(30 * 1024 * 1024)
  write(dir, 'big.bin', big)
  const api = kernelApi(w.h)
  const pid = w.h.kernelFile()!.pid
  await api.get('/api/lanes')
  const peakBefore = peakRss(pid)
  const before = carried(pid)
  let parking = true
  let slowest = 0
  // Another caller, asking every 10 ms: its own answers stay a small part of what the kernel reads and writes.
  const asking = (async () => {
    while (parking) {
      const t0 = performance.now()
      await api.get(`/api/lanes/${name}`)
      slowest = Math.max(slowest, performance.now() - t0)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  const parked = await api.post(`/api/lanes/${name}/reap`, { park: true })
  parking = false
  await asking
  assert.is(parked.status, 200, JSON.stringify(parked.body))
  const after = carried(pid)
  const patchBytes = statSync(parked.body.parked.patch).size
  assert.ok(patchBytes > 30 * 1024 * 1024, `the patch holds ${patchBytes} bytes`)
  // When the kernel copied git's patch into place it read and wrote every byte of it (40 MB each way here).
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`
  for (const way of ['read', 'written'] as const)
    assert.ok(
      after[way] - before[way] < patchBytes / 8,
      `the kernel ${way} ${mb(after[way] - before[way])} during the park of a ${mb(patchBytes)} patch`,
    )
  const grown = peakRss(pid) - peakBefore
  // The whole patch held as one string grew it by 193 MB; copied in pieces through the kernel, 44-48 MB.
  assert.ok(grown < 96 * 1024 * 1024, `the kernel's peak memory grew by ${mb(grown)}`)
  assert.ok(slowest < 1000, `a request waited ${slowest.toFixed(0)} ms during the park`)
  const { ref } = parked.body.parked
  assert.ok(
    execFileSync('git', ['cat-file', 'blob', `${ref}:big.bin`], { cwd: w.checkout, maxBuffer: 64 * 2 ** 20 }).equals(
      big,
    ),
  )
  assert.is(
    await treeOfPatch(w.checkout, `${ref}^`, parked.body.parked.patch),
    git(w.checkout, 'rev-parse', `${ref}^{tree}`),
  )
  assert.ok(key)
})

test.run()
