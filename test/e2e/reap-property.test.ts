import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { git } from '../helpers/home.js'
import { World, filesOf, gitA, treeOfPatch, worktreeTree } from './lane-views-kit.js'
import { content, prng, type Rng } from './dirty-kit.js'
import { caseCount } from '../helpers/cases.js'

// Property: for random dirty trees of every kind of change, a reap without --park is refused and leaves the tree
// exactly as it was, and a reap with --park saves a patch that, applied to the branch head, gives back exactly the
// same tree (compared by tree id). REAP_SEED replays a run; REAP_CASES changes the count (REAP_CASES=400 for a long
// run).
//
// The count: trees of 1 to 12 changes each, 10 in every run (about 65 changes, each kind some six times over) and
// 100 in the nightly run (SERVICE_TEST_FULL=1); the seed is new in each run, so runs together keep drawing new trees.
// Every case takes the same path through the kernel (a launch, a refused reap, a parked reap, about 70 git runs, half
// a second of CPU); what a case varies is the tree, so more trees in one run buy repetitions of that path, not paths
// or pairs of changes the first ones missed. Many changes meeting in one tree is where a patch can go wrong (a rename
// into a folder another change deletes, a typechange of a staged file), so the trees stay as large as they were.
// Case i's first change is of kind i (modulo the kinds), so that every run meets every kind whatever the seed draws.

const CASES = caseCount('REAP_CASES', { quick: 10, full: 100 })
const MAX_CHANGES = 12
const PARALLEL = 8
const SEED = Number(process.env.REAP_SEED ?? Date.now() % 2 ** 31)

const SEGMENTS = [
  'alpha',
  'new folder',
  'ünï',
  'naïve café',
  '日本語',
  'x',
  'deep',
  'two  spaces',
  '-dash',
  'emoji 😀',
  'tab\tname',
  'q"uote',
  'back\\slash',
  'trailing ',
  'line\nbreak',
] as const
const BASE: Record<string, string | Buffer> = {
  'a.txt': 'alpha\n',
  'b.txt': 'bravo\nsecond line\n',
  'dir/c.txt': 'charlie\n',
  'dir/sub/d.txt': 'delta\n',
  'with space.txt': 'space\n',
  'ünï cødé.txt': 'unicode ✓\n',
  'bin.dat': Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0]),
  'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'exec.sh': '#!/bin/sh\necho run\n',
  'empty.txt': '',
  'deep/x/y/z.txt': 'zulu\n',
  'noeol.txt': 'no newline at the end',
  'crlf.txt': 'one\r\ntwo\r\n',
}

/** Regular files and symlinks under dir (the .git entry aside), relative. */
function entries(dir: string, rel = ''): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(dir, rel))) {
    const p = rel ? `${rel}/${name}` : name
    if (p === '.git') continue
    const st = lstatSync(join(dir, p))
    if (st.isDirectory()) out.push(...entries(dir, p))
    else out.push(p)
  }
  return out.sort()
}

/** A path for a new file: 1-3 segments, so often inside new nested folders; undefined when it would collide. */
function freshPath(dir: string, rng: Rng): string | undefined {
  const parts = Array.from({ length: 1 + rng.int(3) }, () => rng.pick(SEGMENTS))
  parts[parts.length - 1] += `-${rng.int(1000)}${rng.pick(['', '.txt', '.bin'])}`
  const p = parts.join('/')
  for (let i = 1; i <= parts.length; i++) {
    const q = join(dir, parts.slice(0, i).join('/'))
    if (!existsSync(q) && !isLink(q)) continue
    if (i === parts.length || !lstatSync(q).isDirectory()) return undefined
  }
  return p
}
const isLink = (p: string) => {
  try {
    return lstatSync(p).isSymbolicLink()
  } catch {
    return false
  }
}
const isFile = (p: string) => lstatSync(p).isFile()

const KINDS = [
  'modify',
  'delete',
  'rename',
  'mode',
  'binary',
  'empty',
  'untracked',
  'symlink',
  'typechange',
  'stage',
] as const
type Kind = (typeof KINDS)[number]

/** One random change of the given kind; returns what it did (for the failure report), or undefined if it could not. */
async function change(dir: string, kind: Kind, rng: Rng): Promise<string | undefined> {
  const files = entries(dir)
  const regular = files.filter((f) => isFile(join(dir, f)))
  const at = (p: string) => join(dir, p)
  const write = (p: string, b: Buffer, mode = 0o644) => {
    mkdirSync(dirname(at(p)), { recursive: true })
    writeFileSync(at(p), b, { mode })
  }
  switch (kind) {
    case 'modify': {
      if (!regular.length) return undefined
      const f = rng.pick(regular)
      writeFileSync(at(f), content(rng))
      return `modify ${JSON.stringify(f)}`
    }
    case 'delete': {
      if (!files.length) return undefined
      const f = rng.pick(files)
      unlinkSync(at(f))
      return `delete ${JSON.stringify(f)}`
    }
    case 'rename': {
      const to = freshPath(dir, rng)
      if (!files.length || !to) return undefined
      const f = rng.pick(files)
      mkdirSync(dirname(at(to)), { recursive: true })
      renameSync(at(f), at(to))
      return `rename ${JSON.stringify(f)} -> ${JSON.stringify(to)}`
    }
    case 'mode': {
      if (!regular.length) return undefined
      const f = rng.pick(regular)
      const m = statSync(at(f)).mode & 0o777
      chmodSync(at(f), m & 0o111 ? 0o644 : 0o755)
      return `chmod ${JSON.stringify(f)}`
    }
    case 'binary': {
      const p = rng.next() < 0.5 && regular.length ? rng.pick(regular) : freshPath(dir, rng)
      if (!p) return undefined
      write(p, Buffer.from(Array.from({ length: 1 + rng.int(2000) }, () => (rng.next() < 0.3 ? 0 : rng.int(256)))))
      return `binary ${JSON.stringify(p)}`
    }
    case 'empty': {
      const p = rng.next() < 0.5 && regular.length ? rng.pick(regular) : freshPath(dir, rng)
      if (!p) return undefined
      write(p, Buffer.alloc(0))
      return `empty ${JSON.stringify(p)}`
    }
    case 'untracked': {
      const p = freshPath(dir, rng)
      if (!p) return undefined
      write(p, content(rng), rng.next() < 0.2 ? 0o755 : 0o644)
      return `untracked ${JSON.stringify(p)}`
    }
    case 'symlink': {
      const p = freshPath(dir, rng)
      if (!p) return undefined
      mkdirSync(dirname(at(p)), { recursive: true })
      symlinkSync(rng.next() < 0.7 && files.length ? rng.pick(files) : `dangling-${rng.int(100)}`, at(p))
      return `symlink ${JSON.stringify(p)}`
    }
    case 'typechange': {
      if (!regular.length) return undefined
      const f = rng.pick(regular)
      unlinkSync(at(f))
      if (rng.next() < 0.5) {
        write(`${f}/inner ${rng.int(100)}.txt`, content(rng))
        return `file to directory ${JSON.stringify(f)}`
      }
      symlinkSync('a.txt', at(f))
      return `file to symlink ${JSON.stringify(f)}`
    }
    case 'stage': {
      // Some of the changes staged in the worktree's own index: the parked tree is still what the worktree holds.
      const p = rng.pick(files.length ? files : ['a.txt'])
      await gitA(dir, ['add', '-A', '--', p.split('/')[0]])
      return `stage ${JSON.stringify(p.split('/')[0])}`
    }
  }
}

let w: World
test.before(async () => {
  w = await new World('prop').begin()
  const co = w.checkout
  for (const [p, c] of Object.entries(BASE)) {
    mkdirSync(dirname(join(co, p)), { recursive: true })
    writeFileSync(join(co, p), c)
  }
  chmodSync(join(co, 'exec.sh'), 0o755)
  symlinkSync('a.txt', join(co, 'link'))
  git(co, 'add', '-A')
  git(co, 'commit', '-qm', 'a base with every kind of file')
  git(co, 'push', '-q', 'origin', 'main')
})
test.after(async () => {
  await w.stop()
})

interface Case {
  i: number
  ops: string[]
  files?: Record<string, string>
  patch?: string
  tree?: string
}

/** The HTTP API of SPEC.md 4.4 (no process to start per call); every tenth case goes through the CLI instead. */
async function api(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const k = w.h.kernelFile()!
  const r = await fetch(`http://127.0.0.1:${k.port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: r.status, json: await r.json() }
}

/** Reap through the CLI or the API; the refusal message, or the patch and the ref. */
async function reapCase(i: number, park: boolean): Promise<{ refused?: string; patch?: string; ref?: string }> {
  const name = `r1-p${i}-builder-i1`
  if (i % 10 === 0) {
    const r = await w.h.svc(['lane', 'reap', name, ...(park ? ['--park'] : [])])
    if (r.code !== 0) {
      assert.is(r.code, 1)
      assert.is(r.stdout, '')
      return { refused: r.stderr }
    }
    const m =
      /^parked \d+ paths? to (.+\.patch) \(kept at (refs\/svc\/parked\/\S+)\)\nreaped r1\/p\d+ builder i1 \(conv \d+\): removed .+; branch r1\/p\d+ kept\n$/.exec(
        r.stdout,
      )
    assert.ok(m, r.stdout)
    assert.is(r.stderr, '')
    return { patch: m![1], ref: m![2] }
  }
  const r = await api(`/api/lanes/${name}/reap`, { park })
  if (r.status !== 200) {
    assert.is(r.status, 409, JSON.stringify(r.json))
    return { refused: `svc: ${r.json.error.message}\n` }
  }
  return { patch: r.json.parked?.patch, ref: r.json.parked?.ref }
}

async function runCase(i: number): Promise<Case> {
  const rng = prng(SEED + i)
  const c: Case = { i, ops: [] }
  try {
    const started = await api('/api/lanes', {
      run: 'r1',
      key: `p${i}`,
      role: 'builder',
      harness: 'none',
      noWait: true,
      prompt: 'x',
      conversation: w.s.root,
    })
    assert.is(started.status, 201, JSON.stringify(started.json))
    const dir = join(w.lanes, `r1-p${i}`)
    const n = 1 + rng.int(MAX_CHANGES)
    // The first change is of the case's own kind, drawn again until it finds where to apply (a new path can collide).
    for (let tries = 0; c.ops.length === 0 && tries < 20; tries++) {
      const did = await change(dir, KINDS[i % KINDS.length], rng)
      if (did) c.ops.push(did)
    }
    for (let k = 1; k < n || c.ops.length === 0; k++) {
      const did = await change(dir, rng.pick(KINDS), rng)
      if (did) c.ops.push(did)
    }
    const status = async () => gitA(dir, ['status', '--porcelain', '--untracked-files=all'])
    if (!(await status())) {
      writeFileSync(join(dir, `forced ${i}.txt`), 'so the tree is dirty\n')
      c.ops.push('untracked "forced"')
    }
    const before = { status: await status(), head: await gitA(dir, ['rev-parse', 'HEAD']), files: filesOf(dir) }
    const tree = await worktreeTree(dir)
    c.tree = tree

    // Without --park: refused, and not one byte, mode, index entry or commit changed (the tree of the worktree is a
    // function of these: its head and every file on disk).
    const refused = await reapCase(i, false)
    assert.match(
      refused.refused ?? '',
      new RegExp(
        `^svc: refused: ${escape(dir)} has uncommitted changes \\(\\d+ paths?\\); commit them, or pass --park to ` +
          `save them to a patch\\n$`,
      ),
    )
    assert.equal(
      { status: await status(), head: await gitA(dir, ['rev-parse', 'HEAD']), files: filesOf(dir) },
      before,
      'the same status, head and bytes',
    )
    const files = before.files

    // With --park: the patch, applied to the branch head, gives back exactly that tree.
    const parked = await reapCase(i, true)
    assert.ok(parked.patch && parked.ref, JSON.stringify(parked))
    assert.not.ok(existsSync(dir), 'the worktree is removed')
    const head = await gitA(w.checkout, ['rev-parse', `refs/heads/r1/p${i}`])
    assert.is(await treeOfPatch(w.checkout, head, parked.patch!), tree, 'the patch reproduces the tree')
    assert.is(await gitA(w.checkout, ['rev-parse', `${parked.ref}^{tree}`]), tree, 'the kept ref holds the tree')
    c.patch = parked.patch
    c.files = i % 10 === 0 ? Object.fromEntries(Object.entries(files).filter(([k]) => !k.endsWith('/'))) : undefined
    return c
  } catch (e) {
    ;(e as Error).message =
      `seed ${SEED}, case ${i} (REAP_SEED=${SEED} replays it): ${c.ops.join('; ')}\n${(e as Error).message}`
    throw e
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

test(`${CASES} random dirty trees: refused without --park and untouched; with --park the patch reproduces each tree exactly`, async () => {
  const done: Case[] = []
  let next = 0
  const worker = async () => {
    while (next < CASES) done.push(await runCase(next++))
  }
  try {
    await Promise.all(Array.from({ length: PARALLEL }, worker))
  } catch (e) {
    console.error(`reap property test: seed ${SEED}`)
    throw e
  }
  assert.is(done.length, CASES)
  const kinds = new Set(done.flatMap((c) => c.ops.map((o) => o.split(' ')[0])))
  for (const k of ['modify', 'delete', 'rename', 'chmod', 'binary', 'empty', 'untracked', 'symlink', 'file', 'stage'])
    assert.ok(kinds.has(k), `some case did ${k}`)

  // Every tenth case once more on disk: the patch applied to a checkout of the branch head gives back every byte.
  for (const c of done.filter((x) => x.files)) {
    const scratch = join(w.h.home, `scratch-${c.i}`)
    git(w.checkout, 'worktree', 'add', '--quiet', '--detach', scratch, `r1/p${c.i}`)
    try {
      git(scratch, 'apply', '--binary', '--whitespace=nowarn', c.patch!)
      assert.is(await worktreeTree(scratch), c.tree, `seed ${SEED}, case ${c.i}: ${c.ops.join('; ')}`)
      assert.equal(filesOf(scratch, false), c.files, `seed ${SEED}, case ${c.i}: ${c.ops.join('; ')}`)
    } finally {
      git(w.checkout, 'worktree', 'remove', '--force', scratch)
    }
  }
})

test.run()
