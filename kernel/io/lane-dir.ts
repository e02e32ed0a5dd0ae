import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { DirIdentity } from '../domain/lane-claim.js'
import { SvcError } from '../domain/errors.js'
import { writeFileAtomic } from './atomic-file.js'
import { gitTry, worktreeGitDir } from './git.js'

/** What identifies a lane's directory on disk, and what git has registered there. */

/** The file, in a worktree's own git directory, naming the launch that made the worktree. */
const LAUNCH_FILE = 'svc-launch'

export async function writeLaunchId(dir: string, id: string): Promise<void> {
  const gitDir = worktreeGitDir(dir)
  if (!gitDir) throw new SvcError('conflict', `${dir} is not a git worktree`)
  await writeFileAtomic(join(gitDir, LAUNCH_FILE), id + '\n', 0o644)
}

/** Device, inode and birth time: a directory removed and made again at the same path gets another. */
export function dirIdOf(dir: string): string | undefined {
  const st = statSync(dir, { bigint: true, throwIfNoEntry: false })
  return st ? `${st.dev}:${st.ino}:${st.birthtimeNs}` : undefined
}

/** The identity of whatever directory is at `dir` now. */
export function identityOf(dir: string): DirIdentity {
  const gitDir = worktreeGitDir(dir)
  let launch: string | undefined
  try {
    if (gitDir) launch = readFileSync(join(gitDir, LAUNCH_FILE), 'utf8').trim()
  } catch {
    launch = undefined
  }
  return { launch, dirId: dirIdOf(dir) }
}

/** The names in a directory; none when it is not there. */
export function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** The worktree git has registered at `dir` (its branch, and whether it is locked), if any. */
export async function worktreeAt(repo: string, dir: string): Promise<{ branch?: string; locked: boolean } | undefined> {
  const r = await gitTry(repo, ['worktree', 'list', '--porcelain'])
  if (!r.ok) throw new SvcError('conflict', `git worktree list failed in ${repo}: ${r.stderr.split('\n').at(-1)}`)
  for (const block of r.stdout.split('\n\n')) {
    const lines = block.split('\n')
    if (lines[0] !== `worktree ${dir}`) continue
    const branch = lines
      .find((l) => l.startsWith('branch '))
      ?.slice(7)
      .replace(/^refs\/heads\//, '')
    return { ...(branch ? { branch } : {}), locked: lines.some((l) => l === 'locked' || l.startsWith('locked ')) }
  }
  return undefined
}
