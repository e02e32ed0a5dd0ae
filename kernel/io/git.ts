import { $ } from 'zx/core'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join, resolve as resolvePath } from 'node:path'
import { SvcError } from '../domain/errors.js'
import { KeyedQueue } from '../serial.js'

/** Git through zx: reads take no optional locks; fetch and worktree add/remove/prune run one at a time per
 * repository. A process result never leaves this file: callers get strings, booleans or an SvcError. */

const env = { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }
for (const k of Object.keys(env)) if (k.startsWith('GIT_') && !['GIT_OPTIONAL_LOCKS', 'GIT_TERMINAL_PROMPT', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_SSH_COMMAND', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM'].includes(k)) delete env[k as keyof typeof env]

interface Ran {
  ok: boolean
  stdout: string
  stderr: string
  code: number | null
}

async function run(cwd: string, args: string[], extraEnv: Record<string, string> = {}, input?: string): Promise<Ran> {
  const p = $({ cwd, env: { ...env, ...extraEnv }, quiet: true, nothrow: true, verbose: false, input })`git ${args}`
  const out = await p
  return { ok: out.exitCode === 0, stdout: out.stdout, stderr: out.stderr.trim(), code: out.exitCode }
}

/** Run git, or fail with git's own message. */
export async function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}, input?: string): Promise<string> {
  const r = await run(cwd, args, extraEnv, input)
  if (!r.ok) throw new SvcError('conflict', `git ${args[0]} failed in ${cwd}: ${lastLine(r.stderr) || `exit code ${r.code}`}`)
  return r.stdout
}

export const gitTry = run

const lastLine = (s: string) => s.split('\n').filter((l) => l && !l.startsWith('hint:')).at(-1) ?? ''

const perRepo = new KeyedQueue()
/** One mutating git operation at a time per repository. */
export const serialized = <T>(repo: string, fn: () => Promise<T>): Promise<T> => perRepo.run(repo, fn)

/** Concurrent fetches of one repository join the one under way if it started after they were asked for. */
const fetches = new Map<string, { startedAt: number; p: Promise<void> }>()
export function fetchOrigin(repo: string, askedAt = Date.now()): Promise<void> {
  const current = fetches.get(repo)
  if (current && current.startedAt >= askedAt) return current.p
  const startedAt = Date.now()
  const p = serialized(repo, async () => {
    const r = await run(repo, ['fetch', '--quiet', '--prune', 'origin'])
    if (!r.ok) throw new SvcError('conflict', `git fetch origin failed in ${repo}: ${lastLine(r.stderr)}`)
  })
  fetches.set(repo, { startedAt, p })
  p.finally(() => {
    if (fetches.get(repo)?.p === p) fetches.delete(repo)
  }).catch(() => {})
  return p
}

export async function revParse(cwd: string, ref: string): Promise<string | undefined> {
  const r = await run(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])
  return r.ok ? r.stdout.trim() : undefined
}

export async function refExists(repo: string, ref: string): Promise<boolean> {
  return (await run(repo, ['show-ref', '--verify', '--quiet', ref])).ok
}

export async function isWorkTree(dir: string): Promise<boolean> {
  const r = await run(dir, ['rev-parse', '--is-inside-work-tree'])
  return r.ok && r.stdout.trim() === 'true'
}

/** The top of the checkout holding dir, if any. */
export async function topLevel(dir: string): Promise<string | undefined> {
  const r = await run(dir, ['rev-parse', '--show-toplevel'])
  return r.ok ? r.stdout.trim() : undefined
}

/** The default branch of origin as the clone knows it (refs/remotes/origin/HEAD), if set. */
export async function originHead(repo: string): Promise<string | undefined> {
  const r = await run(repo, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'])
  return r.ok ? r.stdout.trim().replace(/^origin\//, '') : undefined
}

export interface WorktreeAdd {
  repo: string
  dir: string
  /** A new branch to create at startPoint, or a detached checkout of startPoint. */
  branch?: string
  startPoint: string
  sparse?: string[]
}

/** `git worktree add`, with sparse-checkout patterns applied before the files are written. */
export async function worktreeAdd(w: WorktreeAdd): Promise<void> {
  await serialized(w.repo, async () => {
    const args = ['worktree', 'add', '--quiet']
    if (w.sparse?.length) args.push('--no-checkout')
    if (w.branch) args.push('-b', w.branch)
    else args.push('--detach')
    args.push(w.dir, w.startPoint)
    await git(w.repo, args)
  })
  if (w.sparse?.length) {
    await git(w.dir, ['sparse-checkout', 'set', '--no-cone', '--stdin'], {}, w.sparse.join('\n') + '\n')
    await git(w.dir, ['checkout', '--quiet'])
  }
}

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

export interface GitFacts {
  branch?: string
  head?: string
  upstream?: string
  ahead?: number
  behind?: number
  dirty: boolean
  /** Changed, deleted or untracked paths. */
  dirtyPaths: number
}

/** Branch, head, upstream distance and dirtiness of a worktree in one `git status` (no index lock taken). */
export async function statusFacts(dir: string): Promise<GitFacts> {
  const r = await run(dir, ['status', '--porcelain=v2', '--branch', '--untracked-files=normal'])
  if (!r.ok) throw new SvcError('conflict', `git status failed in ${dir}: ${lastLine(r.stderr)}`)
  return parseStatus(r.stdout)
}

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
  return facts
}

/** Where a worktree's own git files are (HEAD, index): `<dir>/.git` is a file naming them, or a directory. */
export function worktreeGitDir(dir: string): string | undefined {
  const dotGit = join(dir, '.git')
  try {
    const st = statSync(dotGit)
    if (st.isDirectory()) return dotGit
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))
    return m ? resolvePath(dir, m[1].trim()) : undefined
  } catch {
    return undefined
  }
}

/** A cheap fingerprint of what `git status` depends on most: HEAD, the index, and the top directory. */
export function worktreeStamp(dir: string): string {
  const gitDir = worktreeGitDir(dir)
  const m = (p: string) => {
    try {
      const s = statSync(p)
      return `${s.mtimeMs}:${s.size}:${s.ino}`
    } catch {
      return '-'
    }
  }
  return gitDir ? `${m(join(gitDir, 'HEAD'))}|${m(join(gitDir, 'index'))}|${m(dir)}` : 'no-git'
}

/** The tree of everything in the worktree (tracked changes and untracked files, ignored ones aside), built in a
 * temporary index so the worktree's own index is never touched. */
export async function snapshotTree(dir: string): Promise<string> {
  const gitDir = worktreeGitDir(dir)
  if (!gitDir) throw new SvcError('conflict', `${dir} is not a git worktree`)
  const index = join(gitDir, `svc-snapshot-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`)
  try {
    const e = { GIT_INDEX_FILE: index }
    await git(dir, ['read-tree', 'HEAD'], e)
    await git(dir, ['add', '-A'], e)
    return (await git(dir, ['write-tree'], e)).trim()
  } finally {
    rmSync(index, { force: true })
  }
}

/** Apply a patch to HEAD in a temporary index and return the resulting tree: proof that it reproduces the work. */
export async function treeFromPatch(dir: string, patch: string): Promise<string> {
  const gitDir = worktreeGitDir(dir)!
  const index = join(gitDir, `svc-verify-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`)
  try {
    const e = { GIT_INDEX_FILE: index }
    await git(dir, ['read-tree', 'HEAD'], e)
    if (patch.length) await git(dir, ['apply', '--cached', '--binary', '--whitespace=nowarn', '-'], e, patch)
    return (await git(dir, ['write-tree'], e)).trim()
  } finally {
    rmSync(index, { force: true })
  }
}

export async function diffBinary(dir: string, from: string, to: string): Promise<string> {
  return git(dir, ['diff', '--binary', '--full-index', '--no-color', '--no-ext-diff', '--no-renames', from, to])
}

/** Keep a tree reachable: a commit on top of HEAD, named by a ref under refs/svc/parked/. */
export async function keepTree(dir: string, tree: string, ref: string, message: string): Promise<string> {
  const commit = (await git(dir, ['commit-tree', tree, '-p', 'HEAD', '-m', message], {
    GIT_AUTHOR_NAME: 'svc',
    GIT_AUTHOR_EMAIL: 'svc@localhost',
    GIT_COMMITTER_NAME: 'svc',
    GIT_COMMITTER_EMAIL: 'svc@localhost',
  })).trim()
  await git(dir, ['update-ref', ref, commit])
  return commit
}

/** Bring a worktree back to HEAD: tracked changes reverted, untracked (not ignored) files removed. Only ever
 * called after the work was parked and verified. */
export async function cleanTree(dir: string): Promise<void> {
  await git(dir, ['reset', '--quiet', '--hard', 'HEAD'])
  await git(dir, ['clean', '-q', '-f', '-d'])
}

export async function headOf(dir: string): Promise<string | undefined> {
  return revParse(dir, 'HEAD')
}

/** Commits of HEAD that no remote-tracking branch holds (the work a push has not saved). */
export async function unpushedCount(dir: string): Promise<number> {
  const r = await run(dir, ['rev-list', '--count', 'HEAD', '--not', '--remotes'])
  return r.ok ? Number(r.stdout.trim()) : 0
}
