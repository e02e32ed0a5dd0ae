import { createHash } from 'node:crypto'
import {
  closeSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, resolve as resolvePath } from 'node:path'
import {
  dirtyFlagged,
  hiddenByAgent,
  isFlagged,
  launchIgnoreRules,
  type FlaggedEntry,
  type IgnoreFile,
} from '../domain/unseen-work.js'
import { git, gitTry, worktreeGitDir } from './git.js'
import { rawIds } from './git-raw.js'

/** What `git status` does not show in a worktree, read for the reap: flagged index entries that hold edits, files
 * hidden by ignore rules written during the lane's life, and what the branch's own rules hide. */

/** What is on disk at each path: its git mode and the blob id of its raw bytes (no filters: the bytes themselves), or
 * undefined if absent. A regular file's bytes are hashed by git, never read into the kernel: a big file behind a
 * flag would otherwise hold up every other caller. Anything else that is no file, link or folder (a pipe, a socket)
 * is never read and never equals a blob. */
async function diskBlobs(dir: string, paths: string[], idLength: number): Promise<FlaggedEntry['disk'][]> {
  const found: FlaggedEntry['disk'][] = []
  const files: number[] = []
  for (const [i, p] of paths.entries()) {
    const path = join(dir, p)
    const st = lstatSync(path, { throwIfNoEntry: false })
    if (!st) found.push(undefined)
    else if (st.isDirectory()) found.push({ mode: '040000', blob: '' })
    else if (st.isSymbolicLink()) {
      const hash = createHash(idLength === 64 ? 'sha256' : 'sha1')
      const target = Buffer.from(readlinkSync(path, 'buffer'))
      hash.update(`blob ${target.length}\0`)
      hash.update(target)
      found.push({ mode: '120000', blob: hash.digest('hex') })
    } else if (st.isFile()) {
      found.push({ mode: st.mode & 0o100 ? '100755' : '100644', blob: '' })
      files.push(i)
    } else found.push({ mode: '000000', blob: '' })
  }
  const ids = await rawIds(
    dir,
    files.map((i) => paths[i]),
    false,
  )
  files.forEach((i, k) => (found[i]!.blob = ids[k]))
  return found
}

/** Index entries with the assume-unchanged or skip-worktree flag, each with what is on disk at its path. */
async function flaggedEntries(dir: string): Promise<FlaggedEntry[]> {
  const out = await git(dir, ['ls-files', '-z', '-v', '-s'])
  const entries: Omit<FlaggedEntry, 'disk'>[] = []
  for (const rec of out.split('\0')) {
    const m = /^(\S) (\d+) ([0-9a-f]+) \d\t([\s\S]+)$/.exec(rec)
    if (!m || !isFlagged(m[1])) continue
    entries.push({ tag: m[1], mode: m[2], blob: m[3], path: m[4] })
  }
  if (!entries.length) return []
  const disk = await diskBlobs(
    dir,
    entries.map((e) => e.path),
    entries[0].blob.length,
  )
  return entries.map((e, i) => ({ ...e, disk: disk[i] }))
}

/** The commit the worktree was made at: the first entry of its HEAD log (read from its start: the log grows with
 * the lane's work); HEAD where there is no such log. */
function launchCommit(gitDir: string): string {
  const buf = Buffer.alloc(256)
  let fd: number | undefined
  try {
    fd = openSync(join(gitDir, 'logs', 'HEAD'), 'r')
    const id = buf.subarray(0, readSync(fd, buf)).toString('latin1').split(' ')[1]
    if (/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(id)) return id
  } catch {
    // No log: HEAD it is.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  return 'HEAD'
}

/** The `.gitignore` files committed in `rev`, read in one `git grep` (each line, empty ones included); undefined
 * when `rev` cannot be read. */
async function committedIgnoreFiles(dir: string, rev: string): Promise<IgnoreFile[] | undefined> {
  const r = await gitTry(dir, [
    'grep',
    '-z',
    '-a',
    '-n',
    '--no-column',
    '--no-color',
    '--full-name',
    '--no-recurse-submodules',
    '-F',
    '-e',
    '',
    rev,
    '--',
    ':(glob)**/.gitignore',
  ])
  // git grep exits 1 when nothing matched: no .gitignore at all.
  if (!r.ok && r.code !== 1) return undefined
  const lines = new Map<string, string[]>()
  // Each line: <rev>:<path> NUL <number> NUL <text> LF; a path holds no NUL, a text no LF.
  const re = /([^\0]*)\0(\d+)\0([^\n]*)\n/g
  for (let m = re.exec(r.stdout); m; m = re.exec(r.stdout)) {
    const path = m[1].slice(rev.length + 1)
    const list = lines.get(path) ?? []
    list[Number(m[2]) - 1] = m[3]
    lines.set(path, list)
  }
  return [...lines].map(([path, text]) => ({
    dir: path.replace(/\/?\.gitignore$/, ''),
    text: Array.from(text, (l) => l ?? '').join('\n'),
  }))
}

/** The ignore rules the branch had at launch: those committed in the commit the worktree was made at (a rule the
 * lane committed since is its own), or in HEAD when that commit cannot be read. */
async function launchIgnoreFiles(dir: string, gitDir: string): Promise<IgnoreFile[]> {
  const rev = launchCommit(gitDir)
  return (
    (await committedIgnoreFiles(dir, rev)) ?? (rev === 'HEAD' ? [] : ((await committedIgnoreFiles(dir, 'HEAD')) ?? []))
  )
}

/** The global excludes file's text: core.excludesFile, else git's default under the XDG config home. */
async function globalExcludes(dir: string): Promise<string | undefined> {
  const set = (await gitTry(dir, ['config', '--path', '--get', 'core.excludesFile'])).stdout.trim()
  const path = set || join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git', 'ignore')
  try {
    return readFileSync(resolvePath(dir, path), 'utf8')
  } catch {
    return undefined
  }
}

/** The shared info/exclude of the repository and when it was last written. */
async function infoExclude(dir: string): Promise<{ text: string; mtimeMs: number } | undefined> {
  const common = resolvePath(dir, (await git(dir, ['rev-parse', '--git-common-dir'])).trim())
  const path = join(common, 'info', 'exclude')
  try {
    return { text: readFileSync(path, 'utf8'), mtimeMs: statSync(path).mtimeMs }
  } catch {
    return undefined
  }
}

/** Untracked files listed with these exclude options (NUL-separated names, no quoting). */
async function untracked(dir: string, excludes: string[]): Promise<string[]> {
  return (await git(dir, ['ls-files', '-z', '--others', ...excludes])).split('\0').filter(Boolean)
}

/** Run `fn` with the launch ignore rules written to a file of their own in the worktree's git directory. */
async function withLaunchRules<T>(dir: string, launchedAt: number, fn: (file: string) => Promise<T>): Promise<T> {
  const gitDir = worktreeGitDir(dir) ?? join(dir, '.git')
  const [global, info, files] = await Promise.all([
    globalExcludes(dir),
    infoExclude(dir),
    launchIgnoreFiles(dir, gitDir),
  ])
  const file = join(gitDir, `svc-excludes-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`)
  // `commondir` is written once, when the worktree is added.
  const worktreeMadeAt = statSync(join(gitDir, 'commondir'), { throwIfNoEntry: false })?.mtimeMs
  writeFileSync(file, launchIgnoreRules({ global, infoExclude: info, launchedAt, worktreeMadeAt, files }))
  try {
    return await fn(file)
  } finally {
    rmSync(file, { force: true })
  }
}

/** Untracked files hidden only by ignore rules written during the lane's life (launched at `launchedAt`). */
export async function hiddenFiles(dir: string, launchedAt: number): Promise<string[]> {
  return withLaunchRules(dir, launchedAt, async (rules) => {
    const [atLaunch, now] = await Promise.all([
      untracked(dir, [`--exclude-from=${rules}`]),
      untracked(dir, ['--exclude-standard']),
    ])
    return hiddenByAgent(atLaunch, now)
  })
}

/** Bytes under a path, symlinks not followed; read without blocking, as a dependency folder can hold many files. */
async function bytesUnder(path: string): Promise<number> {
  const st = await lstat(path).catch(() => undefined)
  if (!st?.isDirectory()) return st?.size ?? 0
  const names = await readdir(path).catch(() => [] as string[])
  let sum = 0
  for (const name of names) sum += await bytesUnder(join(path, name))
  return sum
}

/** What the branch's own ignore rules hide in the worktree (an ignored directory as one path), with its size. */
export async function ignoredAtLaunch(dir: string, launchedAt: number): Promise<{ path: string; bytes: number }[]> {
  return withLaunchRules(dir, launchedAt, async (rules) => {
    const paths = await untracked(dir, ['--ignored', '--directory', `--exclude-from=${rules}`])
    return Promise.all(paths.map(async (path) => ({ path, bytes: await bytesUnder(join(dir, path)) })))
  })
}

/** The paths of a worktree that hold work `git status` does not show. */
export async function unseenWork(dir: string, launchedAt: number): Promise<{ flagged: string[]; hidden: string[] }> {
  const [flagged, hidden, sparse] = await Promise.all([
    flaggedEntries(dir),
    hiddenFiles(dir, launchedAt),
    isSparse(dir),
  ])
  return { flagged: dirtyFlagged(flagged, sparse), hidden }
}

/** Is the worktree a sparse checkout (core.sparseCheckout, the worktree's own setting where it has one)? */
async function isSparse(dir: string): Promise<boolean> {
  return (await gitTry(dir, ['config', '--bool', '--get', 'core.sparseCheckout'])).stdout.trim() === 'true'
}
