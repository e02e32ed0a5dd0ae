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
 * diff, no renames and the standard a/ b/ prefixes, so `git apply` takes it back whatever the configuration. The
 * headers are mended on the way from git's file to `path` in pieces: a patch of any size costs the kernel a few
 * megabytes and never holds it up. */
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
  const raw = `${path}.git.tmp`
  try {
    await git(dir, [...args, `--output=${raw}`, from, to], {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.quotePath',
      GIT_CONFIG_VALUE_0: 'true',
    })
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

/** A patch in pieces, with each header quoteHeader mends; every other byte passes as it came, a line of any length
 * included (only a line that may be a header is ever held whole). */
export async function* quoteAmbiguousHeaders(patch: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const head = Buffer.from(HEADER, 'latin1')
  // `held`: the start of a line that may still turn out a header; `passing`: inside a line that is none.
  let held: Buffer = Buffer.alloc(0)
  let passing = false
  for await (const chunk of patch) {
    const out: Buffer[] = []
    let at = 0
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at)
      const end = nl < 0 ? chunk.length : nl + 1
      const piece = chunk.subarray(at, end)
      at = end
      if (passing) out.push(piece)
      else {
        held = held.length ? Buffer.concat([held, piece]) : piece
        const known = Math.min(held.length, head.length)
        if (!held.subarray(0, known).equals(head.subarray(0, known))) {
          out.push(held)
          passing = true
        } else if (nl >= 0) {
          const line = held.toString('latin1')
          out.push(Buffer.from(quoteHeader(line.slice(0, -1)) + '\n', 'latin1'))
        }
        if (nl < 0 && passing) held = Buffer.alloc(0)
      }
      if (nl >= 0) {
        passing = false
        held = Buffer.alloc(0)
      }
    }
    if (out.length) yield Buffer.concat(out)
  }
  if (held.length && !passing) yield Buffer.from(quoteHeader(held.toString('latin1')), 'latin1')
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
