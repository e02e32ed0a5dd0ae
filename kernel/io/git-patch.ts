import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { git } from './git.js'
import { isFile, rawIds, regularFiles, withTempIndex } from './git-raw.js'
import { join } from 'node:path'

/** The parked patch: written from a snapshot tree, proved to give it back, the tree kept, the worktree cleaned. */

/** Apply the patch file to `base` in a temporary index and return the resulting tree: proof that it reproduces the
 * work. The index takes the patch's bytes as they are (no filter, attribute or conversion comes between), so equal
 * trees mean equal bytes. */
export async function treeFromPatch(dir: string, patchPath: string, base = 'HEAD'): Promise<string> {
  return withTempIndex(dir, 'verify', async (_, e) => {
    await git(dir, ['read-tree', base], e)
    if (statSync(patchPath).size > 0)
      await git(dir, ['apply', '--cached', '--binary', '--whitespace=nowarn', patchPath], e)
    return (await git(dir, ['write-tree'], e)).trim()
  })
}

/** Write the patch from `from` to `to` into a file, byte for byte: git writes it itself, because the text of a
 * file in another encoding is not UTF-8 and must never pass through a string. No text conversion, no external
 * diff, no renames and the standard a/ b/ prefixes, so `git apply` takes it back whatever the configuration. When
 * no changed path holds a space, git's file is the patch and no byte of it passes through the kernel; otherwise
 * the headers are mended on the way from git's file to `path` in pieces, the bytes between them passed on as
 * they came: a patch of any size costs the kernel a few megabytes and never holds it up. */
export async function diffBinaryToFile(dir: string, from: string, to: string, path: string): Promise<void> {
  const args = [
    'diff',
    '--binary',
    '--full-index',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--no-relative',
    '--src-prefix=a/',
    '--dst-prefix=b/',
  ]
  const quoted = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.quotePath', GIT_CONFIG_VALUE_0: 'true' }
  const names = await git(dir, ['diff', '--name-only', '-z', '--no-renames', '--no-relative', from, to])
  if (!names.includes(' ')) {
    await git(dir, [...args, `--output=${path}`, from, to], quoted)
    return
  }
  const raw = `${path}.git.tmp`
  try {
    await git(dir, [...args, `--output=${raw}`, from, to], quoted)
    await pipeline(createReadStream(raw, { highWaterMark: 1 << 20 }), quoteAmbiguousHeaders, createWriteStream(path))
  } finally {
    rmSync(raw, { force: true })
  }
}

const HEADER = 'diff --git '

/** `git apply` cannot tell where the name ends in an unquoted header `diff --git a/<p> b/<p>` when a directory in
 * <p> ends with a space and the section has no ---/+++ lines (an empty file added or deleted, a mode change).
 * Such headers are written quoted, which it reads unambiguously. With core.quotePath an unquoted name holds no
 * quote, backslash, control or non-ASCII byte, so quoting needs no escapes. */
function quoteHeader(line: string): string {
  if (!line.startsWith(HEADER + 'a/') || !line.includes(' ', HEADER.length)) return line
  const rest = line.slice(HEADER.length)
  const len = (rest.length - 5) / 2
  if (!Number.isInteger(len) || len < 1) return line
  const name = rest.slice(2, 2 + len)
  if (rest.slice(2 + len, 5 + len) !== ' b/' || rest.slice(5 + len) !== name || !name.includes(' ')) return line
  return `${HEADER}"a/${name}" "b/${name}"`
}

const HEAD = Buffer.from(HEADER, 'latin1')
const NL_HEAD = Buffer.from('\n' + HEADER, 'latin1')

/** Does a line that starts at `at` begin with the header's words: 'yes', 'no', or 'maybe' when `buf` ends first. */
function headerAt(buf: Buffer, at: number): 'yes' | 'no' | 'maybe' {
  const known = Math.min(buf.length - at, HEAD.length)
  if (buf.compare(HEAD, 0, known, at, at + known) !== 0) return 'no'
  return known === HEAD.length ? 'yes' : 'maybe'
}

/** A patch in pieces, with each header quoteHeader mends; every other byte passes as it came, a line of any length
 * included. Headers are found by the native search for a line start followed by `diff --git `: the bytes between
 * them are never looked at one by one, and only the start of a line that may be a header is ever held back. */
export async function* quoteAmbiguousHeaders(patch: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  // `held`: the start of a line that may still turn out a header; `lineStart`: the next byte begins a line.
  let held: Buffer = Buffer.alloc(0)
  let lineStart = true
  for await (const chunk of patch) {
    const buf = held.length ? Buffer.concat([held, chunk]) : chunk
    const first = held.length > 0 || lineStart
    held = Buffer.alloc(0)
    const out: Buffer[] = []
    let from = 0
    let at = first && headerAt(buf, 0) === 'yes' ? 0 : -1
    let search = 0
    for (;;) {
      if (at < 0) {
        const found = buf.indexOf(NL_HEAD, search)
        if (found < 0) break
        at = found + 1
      }
      const nl = buf.indexOf(10, at)
      if (nl < 0) {
        held = Buffer.from(buf.subarray(at))
        break
      }
      out.push(buf.subarray(from, at), Buffer.from(quoteHeader(buf.toString('latin1', at, nl)) + '\n', 'latin1'))
      from = nl + 1
      search = nl
      at = -1
    }
    if (!held.length) {
      // The last line may have begun with part of the header's words.
      const last = buf.lastIndexOf(10) + 1 || (first ? 0 : -1)
      if (last >= from && last < buf.length && headerAt(buf, last) === 'maybe') held = Buffer.from(buf.subarray(last))
      out.push(buf.subarray(from, held.length ? last : buf.length))
      lineStart = buf[buf.length - 1] === 10
    } else out.push(buf.subarray(from, buf.length - held.length))
    const ready = out.filter((b) => b.length)
    if (ready.length) yield ready.length === 1 ? ready[0] : Buffer.concat(ready)
  }
  if (held.length) yield Buffer.from(quoteHeader(held.toString('latin1')), 'latin1')
}

/** The files of `tree` whose raw bytes on disk (no filter, attribute or conversion) are not its blobs: none, when
 * the tree holds every byte of the worktree. A file absent from disk (outside a sparse checkout's patterns) must be
 * as it is in `base`. */
export async function rawMismatches(dir: string, tree: string, base: string): Promise<string[]> {
  const files = await regularFiles(dir, { tree })
  const absent = [...files.keys()].filter((p) => !isFile(join(dir, p)))
  const before = absent.length ? await regularFiles(dir, { tree: base }) : new Map()
  const paths = [...files.keys()].filter((p) => isFile(join(dir, p)))
  const ids = await rawIds(dir, paths, false)
  return [
    ...absent.filter((p) => before.get(p)?.id !== files.get(p)!.id),
    ...paths.filter((p, i) => ids[i] !== files.get(p)!.id),
  ]
}

const SVC_ID = {
  GIT_AUTHOR_NAME: 'svc',
  GIT_AUTHOR_EMAIL: 'svc@localhost',
  GIT_COMMITTER_NAME: 'svc',
  GIT_COMMITTER_EMAIL: 'svc@localhost',
}

/** Keep a tree reachable: a commit on top of HEAD, named by a ref under refs/svc/parked/. A `base` tree other than
 * HEAD's (the bytes a checkout wrote, where attributes convert them) gets a commit of its own between. */
export async function keepTree(
  dir: string,
  tree: string,
  ref: string,
  message: string,
  base?: string,
): Promise<string> {
  let parent = 'HEAD'
  const head = (await git(dir, ['rev-parse', 'HEAD^{tree}'])).trim()
  if (base && base !== head)
    parent = (
      await git(dir, ['commit-tree', base, '-p', 'HEAD', '-m', 'svc: HEAD as a checkout wrote it (raw bytes)'], SVC_ID)
    ).trim()
  const commit = (await git(dir, ['commit-tree', tree, '-p', parent, '-m', message], SVC_ID)).trim()
  await git(dir, ['update-ref', ref, commit])
  return commit
}

/** Bring a worktree back to HEAD: tracked changes reverted, untracked files removed, ignored ones too. Only ever
 * called after the work was parked and verified, just before the worktree is removed: files hidden by rules the
 * lane wrote were parked, and once such a rule file is gone what it hid would count as untracked and stop the
 * removal; what the branch's own rules hide goes with the worktree anyway. */
export async function cleanTree(dir: string): Promise<void> {
  await git(dir, ['reset', '--quiet', '--hard', 'HEAD'])
  await git(dir, ['clean', '-q', '-f', '-d', '-x'])
}
