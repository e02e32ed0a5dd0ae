import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join, resolve as resolvePath } from 'node:path'
import { SvcError } from '../domain/errors.js'
import type { GitFacts } from '../domain/git-facts.js'
import { fetchServes } from '../domain/launch.js'
import type { GitPlaces } from '../domain/permissions.js'
import { availableParallelism } from 'node:os'
import { KeyedQueue, Limiter } from '../queue/serial.js'
import { runProcess } from './process.js'

/** Git, run as an argument array (io/process.ts): reads take no optional locks; fetch and worktree add/remove/prune run
 * one at a time per repository. A process result never leaves this file: callers get strings, booleans or an
 * SvcError. */

const env = { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }
for (const k of Object.keys(env))
  if (
    k.startsWith('GIT_') &&
    ![
      'GIT_OPTIONAL_LOCKS',
      'GIT_TERMINAL_PROMPT',
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'GIT_COMMITTER_NAME',
      'GIT_COMMITTER_EMAIL',
      'GIT_SSH_COMMAND',
      'GIT_CONFIG_GLOBAL',
      'GIT_CONFIG_NOSYSTEM',
    ].includes(k)
  )
    delete env[k as keyof typeof env]

interface Ran {
  ok: boolean
  stdout: string
  stderr: string
  code: number | null
}

async function run(cwd: string, args: string[], extraEnv: Record<string, string> = {}, input?: string): Promise<Ran> {
  const out = await runProcess(['git', ...args], { cwd, env: { ...env, ...extraEnv }, input })
  return { ok: out.code === 0, stdout: out.stdout, stderr: (out.error ?? out.stderr).trim(), code: out.code }
}

/** Run git, or fail with git's own message. */
export async function git(
  cwd: string,
  args: string[],
  extraEnv: Record<string, string> = {},
  input?: string,
): Promise<string> {
  const r = await run(cwd, args, extraEnv, input)
  if (!r.ok)
    throw new SvcError('conflict', `git ${args[0]} failed in ${cwd}: ${lastLine(r.stderr) || `exit code ${r.code}`}`)
  return r.stdout
}

export const gitTry = run

const lastLine = (s: string) =>
  s
    .split('\n')
    .filter((l) => l && !l.startsWith('hint:'))
    .at(-1) ?? ''

const perRepo = new KeyedQueue()
/** One mutating git operation at a time per repository. */
export const serialized = <T>(repo: string, fn: () => Promise<T>): Promise<T> => perRepo.run(repo, fn)

/** The newest fetch of a repository; asks join it while domain/launch's fetchServes says it serves them. */
interface Fetch {
  startedAt?: number
  p: Promise<void>
}
const fetches = new Map<string, Fetch>()

/** Fetch origin, so that what it holds when this is asked (askedAt) is here when this resolves; concurrent asks
 * share fetches (fifty starts at once run two or three, not fifty, each of which would hold up worktree adds). */
export function fetchOrigin(repo: string, askedAt = Date.now()): Promise<void> {
  const current = fetches.get(repo)
  if (current && fetchServes(current, askedAt)) return current.p
  const fetch: Fetch = { p: Promise.resolve() }
  fetch.p = serialized(repo, async () => {
    fetch.startedAt = Date.now()
    const r = await run(repo, ['fetch', '--quiet', '--prune', 'origin'])
    if (!r.ok) throw new SvcError('conflict', `git fetch origin failed in ${repo}: ${lastLine(r.stderr)}`)
  })
  fetches.set(repo, fetch)
  fetch.p
    .finally(() => {
      if (fetches.get(repo) === fetch) fetches.delete(repo)
    })
    .catch(() => {})
  return fetch.p
}

/** The commit a ref names, asked as a ref: git never reads it as one of its options. */
export async function revParse(cwd: string, ref: string): Promise<string | undefined> {
  const r = await run(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
  return r.ok ? r.stdout.trim() : undefined
}

export async function refExists(repo: string, ref: string): Promise<boolean> {
  return (await run(repo, ['show-ref', '--verify', '--quiet', ref])).ok
}

export async function isWorkTree(dir: string): Promise<boolean> {
  const r = await run(dir, ['rev-parse', '--is-inside-work-tree'])
  return r.ok && r.stdout.trim() === 'true'
}

/** The default branch of origin as the clone knows it (refs/remotes/origin/HEAD), if set. */
export async function originHead(repo: string): Promise<string | undefined> {
  const r = await run(repo, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'])
  return r.ok ? r.stdout.trim().replace(/^origin\//, '') : undefined
}

interface WorktreeAdd {
  repo: string
  dir: string
  /** A new branch to create at startPoint (a commit or any ref), or a detached checkout of startPoint. */
  branch?: string
  startPoint: string
  sparse?: string[]
}

/** Checkouts at once: as many as there are cores. Fifty at once on two cores take longer than two at a time. */
const checkouts = new Limiter(availableParallelism())

/** `git worktree add`, its files written outside the repository's lock: only adding the worktree (its admin
 * directory, the branch) touches what worktrees share, so that part runs one at a time per repository and the
 * checkouts of several new worktrees run side by side. Sparse-checkout patterns are applied before any file is
 * written. */
export async function worktreeAdd(w: WorktreeAdd): Promise<void> {
  await serialized(w.repo, async () => {
    const args = ['worktree', 'add', '--quiet', '--no-checkout']
    // --no-track: a branch cut from origin/<x> must not take it as its upstream (the lane pushes its own branch).
    if (w.branch) args.push('--no-track', '-b', w.branch)
    else args.push('--detach')
    args.push('--end-of-options', w.dir, w.startPoint)
    await git(w.repo, args)
  })
  try {
    await checkouts.run(async () => {
      if (w.sparse?.length)
        await git(w.dir, ['sparse-checkout', 'set', '--no-cone', '--stdin'], {}, w.sparse.join('\n') + '\n')
      // The files are written as `git worktree add` writes them: a reset, which in a tree of 20 000 files took
      // 50–90 ms less than `git checkout` (a two-way merge), then the post-checkout hook with add's arguments.
      await git(w.dir, ['reset', '--hard', '--quiet'])
      // git names the hook's path (core.hooksPath honoured) with the new HEAD; with no file there, no hook can run,
      // and a start spares a git process.
      const [head, hook] = (await git(w.dir, ['rev-parse', 'HEAD', '--git-path', 'hooks/post-checkout'])).split('\n')
      if (existsSync(resolvePath(w.dir, hook)))
        await git(w.dir, ['hook', 'run', '--ignore-missing', 'post-checkout', '--', '0'.repeat(head.length), head, '1'])
    })
  } catch (e) {
    // Half a worktree is no worktree: what this added goes again, and the caller sees why.
    await undoWorktreeAdd(w.repo, w.dir, w.branch)
    throw e
  }
}

/** Take back a worktree this process added (and the branch it cut for it), as far as git lets: a launch that
 * fails after the add leaves neither behind. */
export async function undoWorktreeAdd(repo: string, dir: string, branch?: string): Promise<void> {
  await worktreeRemove(repo, dir, true).catch(() => {})
  if (branch) await deleteBranch(repo, branch).catch(() => {})
}

/** Forget the worktrees whose directories are gone (one git at a time in the repository). */
export const worktreePrune = (repo: string): Promise<string> => serialized(repo, () => git(repo, ['worktree', 'prune']))

/** Remove a worktree without force (git refuses if it holds changes), then prune. */
export async function worktreeRemove(repo: string, dir: string, force = false): Promise<void> {
  await serialized(repo, async () => {
    await git(repo, ['worktree', 'remove', ...(force ? ['--force'] : []), dir])
    await git(repo, ['worktree', 'prune'])
  })
}

export async function deleteBranch(repo: string, branch: string): Promise<void> {
  await serialized(repo, () => git(repo, ['branch', '-D', branch]))
}

export type { GitFacts }

/** The `git status` whose output parseStatus reads: the kernel's reads, and the state a report on a host carries. */
export const STATUS_ARGS = ['status', '--porcelain=v2', '--branch', '--untracked-files=normal']

/** Branch, head, upstream distance and dirtiness of a worktree in one `git status` (no index lock taken). */
export async function statusFacts(dir: string): Promise<GitFacts> {
  const r = await run(dir, STATUS_ARGS)
  if (!r.ok) throw new SvcError('conflict', `git status failed in ${dir}: ${lastLine(r.stderr)}`)
  return parseStatus(r.stdout)
}

/** `git status --porcelain=v2 --branch` read as the facts a report is checked against. */
export function parseStatus(out: string): GitFacts {
  const facts: GitFacts = { dirty: false, dirtyPaths: 0 }
  for (const line of out.split('\n')) {
    if (line.startsWith('# branch.oid ')) {
      const oid = line.slice(13)
      if (oid !== '(initial)') facts.head = oid
    } else if (line.startsWith('# branch.head ')) {
      const b = line.slice(14)
      if (b !== '(detached)') facts.branch = b
    } else if (line.startsWith('# branch.upstream ')) facts.upstream = line.slice(18)
    else if (line.startsWith('# branch.ab ')) {
      const m = /\+(\d+) -(\d+)/.exec(line)
      if (m) {
        facts.ahead = Number(m[1])
        facts.behind = Number(m[2])
      }
    } else if (line && !line.startsWith('#')) {
      facts.dirty = true
      facts.dirtyPaths++
    }
  }
  // git prints no ahead/behind line for an upstream that does not exist.
  if (facts.upstream && facts.ahead === undefined) facts.upstreamGone = true
  return facts
}

/** Where a worktree's own git files are (HEAD, index): `<dir>/.git` is a file naming them, or a directory. */
export function worktreeGitDir(dir: string): string | undefined {
  const dotGit = join(dir, '.git')
  try {
    const st = statSync(dotGit, { throwIfNoEntry: false })
    if (!st) return undefined
    if (st.isDirectory()) return dotGit
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))
    return m ? resolvePath(dir, m[1].trim()) : undefined
  } catch {
    return undefined
  }
}

/** worktreeStamp of a directory that is no git worktree. */
export const NO_GIT_STAMP = 'no-git'

/** A cheap fingerprint of what `git status` depends on most: HEAD, its log (a commit that leaves HEAD and the index
 * as they were, an empty one or a reset, still appends to it), the index, and the top directory. */
export function worktreeStamp(dir: string, gitDir = worktreeGitDir(dir)): string {
  const m = (p: string) => {
    try {
      const s = statSync(p, { throwIfNoEntry: false })
      return s ? `${s.mtimeMs}:${s.size}:${s.ino}` : '-'
    } catch {
      return '-'
    }
  }
  if (!gitDir) return NO_GIT_STAMP
  return `${m(join(gitDir, 'HEAD'))}|${m(join(gitDir, 'logs', 'HEAD'))}|${m(join(gitDir, 'index'))}|${m(dir)}`
}

/** Commits of HEAD that no remote-tracking branch holds (the work a push has not saved). */
export async function unpushedCount(dir: string): Promise<number> {
  return Number((await git(dir, ['rev-list', '--count', 'HEAD', '--not', '--remotes'])).trim())
}

/** Commits of HEAD that no branch, tag or remote-tracking branch holds: on a detached HEAD, what removing the
 * worktree would leave unreachable. */
export async function unreachableWithoutHead(dir: string): Promise<number> {
  return Number((await git(dir, ['rev-list', '--count', 'HEAD', '--not', '--branches', '--tags', '--remotes'])).trim())
}

/** Point a ref at the worktree's HEAD commit. */
export async function keepHead(dir: string, ref: string): Promise<string> {
  const head = (await git(dir, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim()
  await git(dir, ['update-ref', ref, head])
  return head
}

/** Where git writes when a commit and a push are made in `dir`'s worktree (real paths): its git directory, the
 * common directory, and origin when it is a directory here. Undefined outside a git worktree. */
export async function gitPlaces(dir: string): Promise<GitPlaces | undefined> {
  const gitDir = worktreeGitDir(dir)
  if (!gitDir || !existsSync(gitDir)) return undefined
  let commonDir = gitDir
  const pointer = join(gitDir, 'commondir')
  if (existsSync(pointer)) commonDir = resolvePath(gitDir, readFileSync(pointer, 'utf8').trim())
  const url = (await run(dir, ['config', '--get', 'remote.origin.url'])).stdout.trim()
  const local = url.startsWith('file://') ? url.slice(7) : url.startsWith('/') ? url : undefined
  return {
    gitDir: realpathSync(gitDir),
    commonDir: realpathSync(commonDir),
    ...(local && existsSync(local) ? { localRemote: realpathSync(local) } : {}),
  }
}

/** Record origin's same-named branch as `branch`'s upstream before its first push (what `git push -u` records),
 * for a lane whose sandbox keeps the repository's config read-only. Kept as it is when an upstream is set. */
export async function presetUpstream(repo: string, dir: string, branch: string): Promise<void> {
  await serialized(repo, async () => {
    if ((await run(dir, ['config', '--get', `branch.${branch}.remote`])).ok) return
    if (!(await run(dir, ['remote', 'get-url', 'origin'])).ok) return
    await git(dir, ['config', `branch.${branch}.remote`, 'origin'])
    await git(dir, ['config', `branch.${branch}.merge`, `refs/heads/${branch}`])
  })
}
