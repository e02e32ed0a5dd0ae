import { writeFiles } from '../../cli/demo/sample-project.js'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { scratchDir } from '../helpers/home.js'
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { gitTry } from '../../kernel/io/git.js'
import { diffBinaryToFile, quoteAmbiguousHeaders, rawMismatches, treeFromPatch } from '../../kernel/io/git-patch.js'
import { addedGitlinks, snapshotTree } from '../../kernel/io/git-snapshot.js'
import { checkoutTree, convertedFiles } from '../../kernel/io/git-raw.js'

// The park helpers of kernel/io/git.ts: a worktree's every change, through a patch file, back to the same tree.

const BASE = scratchDir('io-git-park')
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
}
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim()
let n = 0

/** A repository with one commit of these files; returns its directory. */
function repo(files: Record<string, string | Buffer>): string {
  const dir = join(BASE, `r${n++}`)
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  writeFiles(dir, files)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'base', '--allow-empty')
  return dir
}

/** Park round trip: snapshot, patch file, tree from the patch. */
async function roundTrip(dir: string): Promise<{ tree: string; back: string; patch: Buffer }> {
  const tree = await snapshotTree(dir, Date.now())
  const path = join(BASE, `p${n++}.patch`)
  await diffBinaryToFile(dir, 'HEAD', tree, path)
  return { tree, back: await treeFromPatch(dir, path), patch: readFileSync(path) }
}

test.after(() => rmSync(BASE, { recursive: true, force: true }))

/** The raw park of a worktree: base (what a checkout wrote), snapshot, patch, and the tree the patch gives back. */
async function rawPark(dir: string) {
  const base = await checkoutTree(dir)
  const tree = await snapshotTree(dir, Date.now())
  const path = join(BASE, `p${n++}.patch`)
  await diffBinaryToFile(dir, base, tree, path)
  return { base, tree, back: await treeFromPatch(dir, path, base), mismatches: await rawMismatches(dir, tree, base) }
}

/** The raw bytes of a file in a tree. */
const blob = (dir: string, tree: string, path: string) =>
  execFileSync('git', ['cat-file', 'blob', `${tree}:${path}`], { cwd: dir, env })

test('a clean filter that drops lines hides no work from the park: the lines are found, parked as raw bytes, and the proof agrees', async () => {
  const dir = repo({ '.gitattributes': '*.nb filter=strip\n', 'book.nb': 'cell 1\n', 'other.txt': 'x\n' })
  git(dir, 'config', 'filter.strip.clean', "sed '/^out:/d'")
  git(dir, 'config', 'filter.strip.smudge', 'cat')
  writeFileSync(join(dir, 'book.nb'), 'cell 1\nout: 42\n')
  git(dir, 'add', 'book.nb')
  assert.is(git(dir, 'status', '--porcelain'), '', 'git status sees nothing')
  assert.equal(await convertedFiles(dir), ['book.nb'])
  const { base, tree, back, mismatches } = await rawPark(dir)
  assert.is(back, tree)
  assert.equal(mismatches, [])
  assert.is(blob(dir, tree, 'book.nb').toString(), 'cell 1\nout: 42\n')
  assert.is(base, git(dir, 'rev-parse', 'HEAD^{tree}'), 'a checkout writes HEAD as it is')
})

test('line endings a conversion hides are work: CRLF turned to LF under text eol=crlf is parked as raw bytes; an untouched CRLF file is not', async () => {
  const dir = repo({ '.gitattributes': '*.txt text eol=crlf\n', 'a.txt': 'one\ntwo\n', 'b.txt': 'b\n' })
  rmSync(join(dir, 'a.txt'))
  rmSync(join(dir, 'b.txt'))
  git(dir, 'checkout', '--', '.')
  assert.is(readFileSync(join(dir, 'a.txt'), 'latin1'), 'one\r\ntwo\r\n', 'a checkout writes CRLF')
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n')
  git(dir, 'add', 'a.txt')
  assert.is(git(dir, 'status', '--porcelain'), '', 'git status sees nothing')
  assert.equal(await convertedFiles(dir), ['a.txt'])
  const { base, tree, back, mismatches } = await rawPark(dir)
  assert.is(back, tree)
  assert.equal(mismatches, [])
  assert.is(blob(dir, tree, 'a.txt').toString('latin1'), 'one\ntwo\n')
  assert.is(blob(dir, base, 'a.txt').toString('latin1'), 'one\r\ntwo\r\n')
  assert.is(
    git(dir, 'diff-tree', '-r', '--name-only', base, tree),
    'a.txt',
    'the untouched b.txt is the same in both: not in the patch',
  )
})

test('rawMismatches names a file whose bytes on disk are not those of the tree', async () => {
  const dir = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
  const tree = git(dir, 'rev-parse', 'HEAD^{tree}')
  assert.equal(await rawMismatches(dir, tree, tree), [])
  writeFileSync(join(dir, 'b.txt'), 'B\n')
  assert.equal(await rawMismatches(dir, tree, tree), ['b.txt'])
  rmSync(join(dir, 'a.txt'))
  const empty = git(dir, 'hash-object', '-t', 'tree', '-w', '/dev/null')
  assert.equal(
    await rawMismatches(dir, tree, empty),
    ['a.txt', 'b.txt'],
    'a file absent from disk must be as in the base',
  )
})

test('names whose folder ends with a space: an empty file added or removed, a mode change; git apply takes the patch back', async () => {
  const dir = repo({ 'gone /empty': '', 'keep /mode.sh': 'echo\n', 'a.txt': 'a\n' })
  mkdirSync(join(dir, 'new /deeper '), { recursive: true })
  writeFileSync(join(dir, 'new /deeper /empty'), '')
  unlinkSync(join(dir, 'gone /empty'))
  chmodSync(join(dir, 'keep /mode.sh'), 0o755)
  const { tree, back, patch } = await roundTrip(dir)
  assert.is(back, tree)
  assert.ok(patch.toString().includes('diff --git "a/new /deeper /empty" "b/new /deeper /empty"\n'), patch.toString())
})

test('text that is not UTF-8 passes through byte for byte (a patch is bytes, never a string)', async () => {
  const dir = repo({ 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) })
  writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a, 0xff, 0xfe, 0x0a]))
  writeFileSync(join(dir, 'new.txt'), Buffer.from([0x80, 0x81, 0x0a]))
  const { tree, back, patch } = await roundTrip(dir)
  assert.is(back, tree)
  assert.ok(patch.includes(Buffer.from([0x6e, 0x61, 0xef, 0x76, 0x65])), 'the raw bytes are in the patch')
})

test('a configuration that would make an unappliable patch is ignored: no prefix, text conversion, external diff, unquoted paths', async () => {
  const dir = repo({ 'a.txt': 'a\n', 'b.bin': 'b\n' })
  writeFileSync(join(dir, '.git', 'info', 'attributes'), '*.txt diff=upper\n')
  for (const [k, v] of [
    ['diff.noprefix', 'true'],
    ['diff.upper.textconv', 'tr a-z A-Z <'],
    ['diff.external', 'false'],
    ['core.quotePath', 'false'],
    ['diff.mnemonicPrefix', 'true'],
  ])
    git(dir, 'config', k, v)
  writeFileSync(join(dir, 'a.txt'), 'changed\n')
  writeFileSync(join(dir, 'ünï.txt'), 'new\n')
  symlinkSync('a.txt', join(dir, 'link'))
  const { tree, back } = await roundTrip(dir)
  assert.is(back, tree)
})

/** The patch through quoteAmbiguousHeaders, fed in pieces of `size` bytes. */
async function quoted(patch: Buffer, size: number): Promise<string> {
  async function* pieces() {
    for (let i = 0; i < patch.length; i += size) yield patch.subarray(i, i + size)
  }
  const out: Buffer[] = []
  for await (const b of quoteAmbiguousHeaders(pieces())) out.push(b)
  return Buffer.concat(out).toString('latin1')
}

test('quoteAmbiguousHeaders quotes only unquoted headers with a space, and leaves every other byte alone, however the patch is cut into pieces', async () => {
  const patch = Buffer.concat([
    Buffer.from('diff --git a/x /y b/x /y\nnew file mode 100644\n'),
    Buffer.from(
      'diff --git a/plain b/plain\n--- a/plain\n+++ b/plain\n@@ -1 +1 @@\n-diff --git a/q r b/q r\n+\xff\n',
      'latin1',
    ),
    Buffer.from('diff --git "a/t\\tab" "b/t\\tab"\ndiff\n' + 'x'.repeat(5000) + '\ndiff --git a/e f b/e f'),
  ])
  const want =
    'diff --git "a/x /y" "b/x /y"\nnew file mode 100644\ndiff --git a/plain b/plain\n--- a/plain\n+++ b/plain\n@@ ' +
    '-1 +1 @@\n-diff --git a/q r b/q r\n+\xff\ndiff --git "a/t\\tab" "b/t\\tab"\ndiff\n' +
    'x'.repeat(5000) +
    '\ndiff --git "a/e f" "b/e f"'
  for (const size of [1, 2, 3, 7, 11, 64, 1 << 20]) assert.is(await quoted(patch, size), want, `pieces of ${size}`)
  // A last line that only begins like a header, and a header's words inside a line, are left as they are.
  const tail = Buffer.from('x diff --git a/g h b/g h\ndiff --gi', 'latin1')
  for (const size of [1, 4, 9, 64]) assert.is(await quoted(tail, size), tail.toString('latin1'), `the tail in ${size}`)
})

test('snapshotTree sees an edit of the same size in the same second as the index (a racily clean entry)', async () => {
  const dir = repo({ 'f.txt': 'aaaa\n' })
  const index = join(dir, '.git', 'index')
  // The index records the file at a time seconds ago, so that the snapshot is taken in a later second than the index
  // was written without waiting for one to pass.
  const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000)
  utimesSync(join(dir, 'f.txt'), past, past)
  git(dir, 'update-index', '--refresh')
  const before = statSync(join(dir, 'f.txt'))
  assert.is(before.mtimeMs, past.getTime())
  writeFileSync(join(dir, 'f.txt'), 'bbbb\n')
  // Same size and mtime as the index records, and the index no older than the file: only its bytes changed.
  utimesSync(join(dir, 'f.txt'), before.atime, before.mtime)
  utimesSync(index, before.atime, before.mtime)
  const tree = await snapshotTree(dir, Date.now())
  assert.is(git(dir, 'cat-file', '-p', `${tree}:f.txt`), 'bbbb')
  assert.is(
    git(dir, 'status', '--porcelain'),
    'M f.txt',
    'git itself sees the change (a status may rewrite the index: last)',
  )
})

test('addedGitlinks names a repository inside the worktree that HEAD does not have', async () => {
  const dir = repo({ 'a.txt': 'a\n' })
  mkdirSync(join(dir, 'inner'))
  git(join(dir, 'inner'), 'init', '-q')
  writeFileSync(join(dir, 'inner', 'f'), 'f\n')
  git(join(dir, 'inner'), 'add', 'f')
  git(join(dir, 'inner'), 'commit', '-qm', 'f')
  writeFileSync(join(dir, 'b.txt'), 'b\n')
  assert.equal(await addedGitlinks(dir, await snapshotTree(dir, Date.now())), ['inner'])
  rmSync(join(dir, 'inner'), { recursive: true })
  assert.equal(await addedGitlinks(dir, await snapshotTree(dir, Date.now())), [])
})

test('every argument reaches git as it was given, with no shell between: quotes, $, backquotes, newlines, globs', async () => {
  const dir = repo({ 'a.txt': 'a\n' })
  const odd = [
    "it's",
    'a b',
    '$HOME',
    '`id`',
    '\\',
    '"q"',
    'ünï',
    'x\ny',
    '*',
    '--',
    "'",
    "''",
    '$(echo no)',
    ';',
    '|&<>',
  ]
  const r = await gitTry(dir, ['rev-parse', '--sq-quote', ...odd])
  assert.ok(r.ok, r.stderr)
  // --sq-quote gives each argument back single-quoted for sh; sh's own reading of that line is the check.
  const back = execFileSync('sh', ['-c', `for a in ${r.stdout.trim()}; do printf '%s\\0' "$a"; done`], {
    encoding: 'utf8',
  })
    .split('\0')
    .slice(0, -1)
  assert.equal(back, odd)
  const input = await gitTry(dir, ['hash-object', '--stdin'], {}, "it's input\n")
  assert.equal(
    input.stdout.trim(),
    execFileSync('git', ['hash-object', '--stdin'], { cwd: dir, input: "it's input\n", encoding: 'utf8' }).trim(),
  )
})

test.run()
