import { existsSync, lstatSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { convertedWork, convertingPaths } from '../domain/unseen-work.js'
import { git, gitTry, worktreeGitDir } from './git.js'
import { SvcError } from '../domain/errors.js'

/** Raw bytes of a worktree, whatever attributes, filters or line-ending settings would make of them: what the park
 * stores, the base its patch applies to, and its proof. */

export const nul = (paths: string[]) => paths.map((p) => p + '\0').join('')
/** A path as `hash-object --stdin-paths` reads it back: C-quoted, so any byte but NUL passes. */
const cQuote = (p: string) =>
  `"${p.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`

/** Run `fn` with an index file of its own in the worktree's git directory (and the environment naming it for
 * git), removed afterwards whatever happens: the worktree's own index is never touched. */
export async function withTempIndex<T>(
  dir: string,
  label: string,
  fn: (index: string, env: Record<string, string>, gitDir: string) => Promise<T>,
): Promise<T> {
  const gitDir = worktreeGitDir(dir)
  if (!gitDir) throw new SvcError('conflict', `${dir} is not a git worktree`)
  const index = join(gitDir, `svc-${label}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`)
  try {
    return await fn(index, { GIT_INDEX_FILE: index }, gitDir)
  } finally {
    rmSync(index, { force: true })
  }
}

export function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile()
  } catch {
    return false
  }
}

/** Blob ids of the raw bytes of these files (relative to `dir`, or absolute), stored in the repository when
 * `write`. */
export async function rawIds(dir: string, paths: string[], write: boolean): Promise<string[]> {
  if (!paths.length) return []
  const args = ['hash-object', ...(write ? ['-w'] : []), '--no-filters', '--stdin-paths']
  return (await git(dir, args, {}, paths.map(cQuote).join('\n') + '\n')).trim().split('\n')
}

/** Blob ids of these files as git would store them on `add`: through the filters and conversions of their path. */
async function filteredIds(dir: string, paths: string[]): Promise<string[]> {
  if (!paths.length) return []
  return (await git(dir, ['hash-object', '--stdin-paths'], {}, paths.map(cQuote).join('\n') + '\n')).trim().split('\n')
}

/** Of these paths, those whose bytes git may convert between the repository and the disk (domain's
 * convertingPaths): on the others, the blob git stores is the raw bytes. */
export async function mayConvert(dir: string, paths: string[]): Promise<string[]> {
  if (!paths.length) return []
  const autocrlf = (await gitTry(dir, ['config', '--get', 'core.autocrlf'])).stdout
  const fields = (await git(dir, ['check-attr', '-a', '-z', '--stdin'], {}, nul(paths))).split('\0')
  const attrs = []
  for (let i = 0; i + 2 < fields.length; i += 3)
    attrs.push({ path: fields[i], attr: fields[i + 1], value: fields[i + 2] })
  return convertingPaths(paths, attrs, autocrlf)
}

/** Regular files of a tree (`ls-tree -r`) or of an index (`ls-files -s`, with `env` naming it): path to mode and
 * blob id. */
export async function regularFiles(
  dir: string,
  from: { tree: string } | { env: Record<string, string> },
): Promise<Map<string, { mode: string; id: string }>> {
  const out =
    'tree' in from
      ? await git(dir, ['ls-tree', '-r', '-z', '--full-tree', from.tree])
      : await git(dir, ['ls-files', '-s', '-z'], from.env)
  const files = new Map<string, { mode: string; id: string }>()
  for (const rec of out.split('\0')) {
    const tab = rec.indexOf('\t')
    if (tab < 0) continue
    const [mode, a, b] = rec.slice(0, tab).split(' ')
    if (mode === '100644' || mode === '100755') files.set(rec.slice(tab + 1), { mode, id: 'tree' in from ? b : a })
  }
  return files
}

/** The raw bytes a checkout of HEAD writes at these paths here (HEAD's attributes, filters and line endings), as
 * blob ids stored in the repository: git's own checkout writes them to a scratch folder, which is read raw. */
async function checkoutIds(dir: string, paths: string[]): Promise<string[]> {
  if (!paths.length) return []
  return withTempIndex(dir, 'checkout', async (_, env, gitDir) => {
    const out = mkdtempSync(join(gitDir, 'svc-checkout-'))
    try {
      await git(dir, ['read-tree', 'HEAD'], env)
      await git(dir, ['checkout-index', '-f', '-z', '--stdin', `--prefix=${out}/`], env, nul(paths))
      return await rawIds(
        dir,
        paths.map((p) => join(out, p)),
        true,
      )
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
}

/** The tree a checkout of HEAD leaves on disk, each file as its raw bytes: HEAD's own tree unless attributes or
 * settings make a checkout write other bytes than its blobs. The parked patch applies to it. */
export async function checkoutTree(dir: string): Promise<string> {
  const head = await regularFiles(dir, { tree: 'HEAD' })
  const paths = await mayConvert(dir, [...head.keys()])
  const ids = await checkoutIds(dir, paths)
  const differ = paths.map((p, i) => ({ p, id: ids[i] })).filter(({ p, id }) => id !== head.get(p)!.id)
  if (!differ.length) return (await git(dir, ['rev-parse', 'HEAD^{tree}'])).trim()
  return withTempIndex(dir, 'base', async (_, env) => {
    await git(dir, ['read-tree', 'HEAD'], env)
    const info = differ.map(({ p, id }) => `${head.get(p)!.mode} ${id}\t${p}\0`).join('')
    await git(dir, ['update-index', '-z', '--index-info'], env, info)
    return (await git(dir, ['write-tree'], env)).trim()
  })
}

/** Tracked files `git status` calls unchanged whose raw bytes differ from those a checkout of HEAD writes (a clean
 * filter that drops lines, line endings a conversion hides): work all the same. */
export async function convertedFiles(dir: string): Promise<string[]> {
  const head = await regularFiles(dir, { tree: 'HEAD' })
  // What git status shows is counted as such already.
  const shown = new Set(
    (await git(dir, ['status', '--porcelain', '-z', '--untracked-files=no', '--no-renames']))
      .split('\0')
      .map((l) => l.slice(3)),
  )
  const onDisk = [...head.keys()].filter((p) => !shown.has(p) && isFile(join(dir, p)))
  const paths = await mayConvert(dir, onDisk)
  if (!paths.length) return []
  const [raw, filtered, checkout] = await Promise.all([
    rawIds(dir, paths, false),
    filteredIds(dir, paths),
    checkoutIds(dir, paths),
  ])
  return convertedWork(
    paths.map((path, i) => ({
      path,
      head: head.get(path)!.id,
      raw: raw[i],
      filtered: filtered[i],
      checkout: checkout[i],
    })),
  )
}

/** Gitlinks of the index whose folder holds a repository of its own: submodules checked out in the worktree. */
export async function checkedOutSubmodules(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const rec of (await git(dir, ['ls-files', '-s', '-z'])).split('\0')) {
    const tab = rec.indexOf('\t')
    if (tab > 0 && rec.startsWith('160000 ') && existsSync(join(dir, rec.slice(tab + 1), '.git')))
      found.push(rec.slice(tab + 1))
  }
  return found
}
