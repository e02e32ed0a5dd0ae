import { snapshotRef } from '../../domain/host-stream.js'
import { worktreeGitDir } from '../../io/git.js'
import { keepTree } from '../../io/git-patch.js'
import { snapshotTree } from '../../io/git-snapshot.js'

/** The lane's worktree as a commit on top of its HEAD, kept on the lane's hidden ref for `id`; undefined when the
 * directory is not a git worktree. */
export async function snapshotLane(lane: string, cwd: string, startedAt: number, id: string) {
  if (!worktreeGitDir(cwd)) return undefined
  const tree = await snapshotTree(cwd, startedAt)
  return keepTree(cwd, tree, snapshotRef(lane, id), `svc: lane ${lane}, snapshot ${id}`)
}
