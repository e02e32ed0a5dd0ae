import type { Role } from './keys.js'
import { holdsItsDirectory } from './lane.js'

/** SPEC.md section 2, working directories by role: the directory name of a lane under the lanes root. */
export function laneDirName(run: string, key: string, role: Role, iteration: number): string {
  switch (role) {
    case 'orchestrator':
      return `${run}-${key}-orch`
    case 'builder':
      return iteration === 1 ? `${run}-${key}` : `${run}-${key}-i${iteration}`
    case 'critic':
      return `${run}-${key}-critic-i${iteration}`
    case 'verifier':
      return `${run}-${key}-verify-i${iteration}`
    case 'play':
      return `${run}-${key}-play-i${iteration}`
  }
}

/** A builder's branch: `<run>/<key>` for iteration 1, `<run>/<key>-i<n>` after. */
export const builderBranch = (run: string, key: string, iteration: number) => (iteration === 1 ? `${run}/${key}` : `${run}/${key}-i${iteration}`)

/** The conversation name of a lane; `attempt` > 0 for a respawn in the same iteration. */
export const laneConvName = (run: string, key: string, role: Role, iteration: number, attempt: number) =>
  `${run}-${key}-${role}-i${iteration}${attempt ? `-${attempt + 1}` : ''}`

/** Roles whose directory is a git worktree. */
export const isGitBacked = (role: Role) => role !== 'play'

/** SPEC.md 3: git facts (branch, head, ahead, dirty) are read only for git-backed lanes that are not archived. */
export const readsGitFacts = (l: { lane: { role: Role }; archived?: unknown; reaped?: unknown }) => isGitBacked(l.lane.role) && holdsItsDirectory(l)

/** Is `inner` equal to or inside `outer` (both absolute, normalised real paths)? */
export const isWithin = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith('/') ? outer : outer + '/')

/** SPEC.md section 8: the lanes root lies under the user's home, outside /tmp, and does not contain the checkout.
 * All paths are real paths; `tmp` is the real path of /tmp where that is a link (macOS). /tmp is checked first:
 * a root there is named for what it is even when the home is elsewhere. */
export function lanesRootProblem(root: string, home: string, checkout: string, tmp = '/tmp'): string | undefined {
  if (isWithin(root, '/tmp') || isWithin(root, tmp)) return `the lanes root ${root} lies under /tmp`
  if (!isWithin(root, home) || root === home) return `the lanes root ${root} is not under the home directory ${home}`
  if (isWithin(checkout, root)) return `the lanes root ${root} contains the project checkout ${checkout}`
  return undefined
}
