import type { ConversationRecord, LaneFacts } from './conversation.js'
import { isGitBacked, type Role } from './keys.js'
import { holdsItsDirectory } from './lane.js'
import { workDirOf } from './worker-rules.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'

/** A lane's hold on its directory. `<root>/<run>-<key>` is ambiguous when the run or the key holds a `-`, so a
 * directory is never known by its path alone: a launch records what identifies the directory it made, a reap touches
 * only that one, and no launch is given a directory a lane still holds. */

/** What a launch records before it touches git or the lanes root, so that a launch cut short (the kernel killed) can
 * be finished or taken back: kept in the service home until the lane's record claims the directory. */
export interface LaunchIntent {
  /** Unique per launch: written into the worktree's git directory and onto the lane's record (`made.launch`). */
  id: string
  dir: string
  kind: 'worktree' | 'play'
  repo?: string
  /** The branch the launch cuts (builders), and the commit it is cut from or checked out at. */
  branch?: string
  start?: string
  at: number
}

/** What identifies a directory found at a lane's path: the launch id in its worktree's git directory (git-backed
 * lanes), and the directory's device, inode and birth time (play lanes, which hold no git directory). */
export interface DirIdentity {
  launch?: string
  dirId?: string
}

const holderName = (r: ConversationRecord) =>
  r.lane
    ? `lane ${r.lane.run}/${r.lane.key} ${r.lane.role} i${r.lane.iteration} (conv ${r.id})`
    : `worker ${r.worker!.issue} i${r.worker!.iteration} (conv ${r.id})`

/** A lane (or a worker) holds its directory from its launch until it is reaped (or archived, which only a reap did
 * before reaps were recorded). A launch into a directory held by another is refused, naming the holder. */
export function dirClaimRefusal(dir: string, records: ConversationRecord[]): Decision {
  const holder = dirHolder(dir, records)
  if (!holder) return ALLOWED
  return refuse(
    'conflict',
    `refused: ${dir} is the directory of ${holderName(holder)}, which is not reaped; reap it first (svc ` +
      `${holder.lane ? 'lane' : 'worker'} reap ${holder.id})`,
  )
}

/** SPEC.md 4.1 start, --reuse: the earlier lane's directory must still be there, not reaped. */
export const reusableDirectory = (
  dir: string,
  id: string,
  f: { reaped: boolean; exists: boolean; reaping?: boolean },
): Decision =>
  f.reaping
    ? refuse('conflict', `refused: the directory ${dir} of conv ${id} is being reaped; start a new iteration instead`)
    : !f.reaped && f.exists
      ? ALLOWED
      : refuse(
          'conflict',
          `refused: the directory ${dir} of conv ${id} is gone (reaped?); start a new iteration instead`,
        )

/** SPEC.md 4.1 start: a new lane's directory is made, never taken over; something already at its path refuses the
 * launch, unless a launch cut short left it there (`interrupted`: its intent file is still there). */
export const pathFree = (dir: string, f: { exists: boolean; interrupted: boolean }): Decision =>
  f.interrupted || !f.exists
    ? ALLOWED
    : refuse('conflict', `refused: ${dir} already exists; reap the lane that used it or move it away`)

export const dirHolder = (dir: string, records: ConversationRecord[]) =>
  records.find((r) => {
    const d = workDirOf(r)
    return Boolean(d && holdsItsDirectory(r) && `${d.root}/${d.dir}` === dir)
  })

/** Is the directory found at a lane's path the one its launch made? Allowed when it is, or when the lane was
 * launched before launches recorded it (nothing to compare); else the refusal. A lane holds its path until it is
 * reaped, so another lane is never given it: what is there was made by hand. */
export function notOwnDirectory(
  lane: { role: Role; made?: LaneFacts['made'] },
  dir: string,
  found: DirIdentity,
): Decision {
  const made = lane.made
  if (!made) return ALLOWED
  if (isGitBacked(lane.role) ? found.launch === made.launch : found.dirId === made.dirId) return ALLOWED
  return refuse(
    'conflict',
    `refused: ${dir} is not the directory this lane was launched in (it was removed and made again since); nothing ` +
      `was touched`,
  )
}

/** A lane reaped with --keep, reaped again: its directory went with the first reap; what is at its path now is
 * another's and is left alone. */
export const reappearedWarning = (dir: string) =>
  `warning: ${dir} was removed by an earlier reap; what is there now is not this lane's and was left alone`

/** What is found of a launch that no record claims. */
export interface UndoFacts {
  /** A lane record carries the launch's id: the launch got as far as its record. */
  claimed: boolean
  /** A lane not reaped has its directory at this path: whatever is there is that lane's. */
  heldByLane: boolean
  /** The launch id found in the git directory of the worktree there, if any. */
  launchFound?: string
  dirExists: boolean
  /** The names in the directory (play lanes, and a directory that is no worktree). */
  entries: string[]
  /** The worktree git has registered at the directory, if any: its branch, and whether it is locked. */
  worktree?: { branch?: string; locked: boolean }
  /** Git-backed: the worktree's changed and untracked paths (undefined: git could not read its status), its HEAD,
   * and where the launch's branch points now. */
  dirtyPaths?: number
  head?: string
  branchTip?: string
}

export interface UndoPlan {
  /** Nothing left to do: the intent can go. */
  settled: boolean
  /** Remove the worktree (forced only when it holds nothing but git's files), or only prune its entry when its
   * directory is gone. */
  removeWorktree?: 'plain' | 'force' | 'prune'
  deleteBranch?: string
  removeDir?: boolean
  /** What could not be undone safely, and the exact fix. */
  leftover?: { detail: string; fix: string }
}

/** A launch no record claims is taken back, and only what it provably made and nobody has used: its worktree when
 * it holds no change (or nothing but git's files, a checkout that never began), its branch when the worktree was
 * on it and it still points at the commit it was cut from, an empty play directory. Anything else is left as it is
 * and reported with its fix; the next launch into the directory, or the next kernel start, looks again. */
export function planUndo(intent: LaunchIntent, f: UndoFacts): UndoPlan {
  // Never undo what another launch made.
  if (f.claimed || f.heldByLane || (f.launchFound !== undefined && f.launchFound !== intent.id))
    return { settled: true }
  const { dir, repo } = intent
  const leftover = (detail: string, fix: string): UndoPlan => ({
    settled: false,
    leftover: { detail: `an interrupted launch left ${dir}: ${detail}`, fix },
  })
  const onlyGit = f.entries.every((e) => e === '.git')
  if (f.worktree && repo) {
    const ours = f.worktree.branch !== undefined && f.worktree.branch === intent.branch
    const moved = (f.head !== undefined && f.head !== intent.start) || (ours && f.branchTip !== intent.start)
    const removal =
      `git -C ${repo} worktree remove --force ${dir}` + `${ours ? ` && git -C ${repo} branch -D ${intent.branch}` : ''}`
    if (f.worktree.locked)
      return leftover(
        'a locked worktree no lane record claims',
        `keep what you need from it, then run: git -C ${repo} worktree unlock ${dir} && ${removal}`,
      )
    if (moved)
      return leftover(
        `a worktree no lane record claims, with commits made in it`,
        `keep what you need from it${ours ? ` and from ${intent.branch}` : ''}, then run: ${removal}`,
      )
    if (!f.dirExists)
      return { settled: true, removeWorktree: 'prune', ...(ours ? { deleteBranch: intent.branch } : {}) }
    const clean = f.dirtyPaths === 0
    if (!clean && !onlyGit) {
      const state =
        f.dirtyPaths === undefined
          ? 'whose status git cannot read'
          : `with changes (${f.dirtyPaths} path${f.dirtyPaths === 1 ? '' : 's'})`
      return leftover(`a worktree no lane record claims, ${state}`, `keep what you need from it, then run: ${removal}`)
    }
    return {
      settled: true,
      removeWorktree: clean ? 'plain' : 'force',
      ...(ours ? { deleteBranch: intent.branch } : {}),
    }
  }
  if (!f.dirExists) return { settled: true }
  if (f.entries.length === 0) return { settled: true, removeDir: true }
  return leftover(
    `a directory no lane record claims, not empty`,
    `keep what you need from it, then remove it: rm -r ${dir}`,
  )
}
