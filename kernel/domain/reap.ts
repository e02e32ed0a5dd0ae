import { isGitBacked, type Role } from './keys.js'
import { isWithin } from './configuration.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'
import { someOf } from './unseen-work.js'

/** What the reap knows about a lane's directory at one moment. */
export interface ReapFacts {
  role: Role
  /** The lane's directory as made at launch (a real path then). */
  dir: string
  /** Real path of the lane directory now, or undefined when it no longer exists. */
  dirReal?: string
  /** The lanes root as recorded at launch (a real path then). */
  rootReal: string
  harnessAlive: boolean
  /** Processes with their working directory inside the lane (`cwdInside`), or holding files open inside it. */
  processes: ProcessInside[]
  /** Git-backed lanes: the directory is still a git worktree of its own (a `.git` naming its worktree entry). */
  worktree: boolean
  /** Git-backed lanes: changed or untracked paths in the worktree, those `git status` does not show included. */
  dirtyPaths: number
  /** Of those, the paths `git status` does not show (flagged index entries, files hidden by the lane's own rules). */
  unseenPaths?: string[]
  park: boolean
  /** Git-backed lanes: the worktree is locked (its reason), so git would not remove it without force. */
  locked?: string
  /** Git-backed lanes, after the stop: the worktree's index lock file, when one is there (a park needs it gone). */
  indexLock?: string
  /** Git-backed lanes: submodules checked out inside the worktree (a repository of their own at a gitlink path). */
  submodules?: string[]
}

/** A process that uses the lane's directory. */
interface ProcessInside {
  pid: number
  command: string
  cwdInside: boolean
  /** Files inside the lane directory it holds open. */
  files: string[]
}

const byPid = (ps: ProcessInside[]) => [...ps].sort((a, b) => a.pid - b.pid)
const named = (p: ProcessInside) => `${p.pid} (${p.command || '?'})`

/** SPEC.md 4.1 reap step 3: processes whose working directory is inside, then those that only hold files open inside;
 * each listed. */
export function processRefusal(dir: string, ps: ProcessInside[], filesShown = 3): string | undefined {
  const inCwd = byPid(ps.filter((p) => p.cwdInside))
  const holding = byPid(ps.filter((p) => !p.cwdInside && p.files.length))
  const parts: string[] = []
  if (inCwd.length)
    parts.push(
      `${inCwd.length === 1 ? 'a process has its' : `${inCwd.length} processes have their`} working directory inside ${dir}: ${inCwd.map(named).join(', ')}`,
    )
  if (holding.length) {
    const held = holding.map((p) => `${named(p)} holding ${someOf([...p.files].sort(), filesShown)}`)
    parts.push(
      `${holding.length === 1 ? 'a process holds' : `${holding.length} processes hold`} files open inside ${dir}: ${held.join('; ')}`,
    )
  }
  return parts.length ? `refused: ${parts.join('; ')}` : undefined
}

/** SPEC.md 4.1 reap steps 1-4, in order: the first refusal (its message), or undefined when the reap may go on. */
function firstRefusal(f: ReapFacts, limitS: number): string | undefined {
  if (f.harnessAlive) return `refused: the harness is still alive after ${limitS} s`
  if (f.dirReal === undefined) return undefined
  if (!isWithin(f.dirReal, f.rootReal) || f.dirReal === f.rootReal)
    return `refused: ${f.dirReal} is outside the lanes root ${f.rootReal}`
  // A symlink swapped in for the lane's directory must not lead the reap to another lane's directory either.
  if (f.dirReal !== f.dir) return `refused: ${f.dir} resolves to ${f.dirReal}, which is not this lane's directory`
  const busy = processRefusal(f.dirReal, f.processes)
  if (busy) return busy
  if (isGitBacked(f.role) && !f.worktree)
    return `refused: ${f.dirReal} is no longer a git worktree; look at it, then remove it yourself`
  if (f.locked !== undefined)
    return `refused: the worktree ${f.dirReal} is locked (${f.locked || 'no reason given'}); unlock it with git worktree unlock once nothing is using it`
  // A patch records a submodule's commit, never its files, and git removes no worktree that holds one.
  if (f.submodules?.length)
    return `refused: ${f.dirReal} holds ${f.submodules.length === 1 ? 'a checked-out submodule' : `${f.submodules.length} checked-out submodules`} (${someOf(f.submodules, 3)}) whose work a patch cannot carry; commit and push ${f.submodules.length === 1 ? 'its' : 'their'} work, run git submodule deinit --all in ${f.dirReal}, then reap again`
  if (f.dirtyPaths > 0 && !f.park)
    return `refused: ${f.dirReal} has uncommitted changes (${f.dirtyPaths} path${f.dirtyPaths === 1 ? '' : 's'}${unseenNote(f.unseenPaths ?? [])}); commit them, or pass --park to save them to a patch`
  // A park cleans the tree, which git refuses while an index lock is there; a clean tree is removed all the same.
  if (f.dirtyPaths > 0 && f.indexLock !== undefined)
    return `refused: ${f.indexLock} exists, so git cannot change the worktree; if no git command is running in ${f.dirReal}, remove that file and reap again`
  return undefined
}

/** SPEC.md 4.1 reap steps 1-4, in order: the reap goes on, or is refused (and archives nothing). */
export function reapRefusal(f: ReapFacts, limitS: number): Decision {
  const message = firstRefusal(f, limitS)
  return message === undefined ? ALLOWED : refuse('conflict', message)
}

/** The dirty paths `git status` does not show, named: a person looking at the status would otherwise see none. */
function unseenNote(paths: string[], shown = 3): string {
  return paths.length ? `, ${paths.length} of them hidden from git status: ${someOf([...paths].sort(), shown)}` : ''
}

/** SPEC.md 4.1 reap steps 1 and 3: which processes with their working directory inside the lane count against a reap.
 * Before the stop, those the stop will end do not: anything of the lane's own process group, the runner and the
 * harness. A process whose group is unknown (read without /proc) might be one of them, so only the check after the
 * stop counts it. */
export function countsAgainstReap(
  p: { pid: number; pgid?: number },
  stopped: boolean,
  lane: { runnerPid?: number; harnessPid?: number },
): boolean {
  if (stopped) return true
  return p.pgid !== undefined && p.pgid !== lane.runnerPid && p.pid !== lane.harnessPid
}

/** SPEC.md 4.1 reap step 6: a play directory holding a `.git` anywhere inside (`found`, relative to it) is kept, never
 * removed. */
export const playKeptWarning = (dir: string, found: string) =>
  `warning: ${dir} holds a .git${found === '.git' ? '' : ` (${found})`}; the play directory is kept`

/** SPEC.md 4.1 reap step 6 (nothing left to remove): a lane whose directory was already gone reaps, with this warning. */
export const alreadyGoneWarning = (dir: string) => `warning: ${dir} was already gone`

/** SPEC.md 4.1 reap: a lane reaped and archived is not reaped again (a reap kept with --keep, not archived, may be). */
export const notYetReaped = (rec: { id: string; name: string; archived?: unknown }): Decision =>
  rec.archived ? refuse('conflict', `refused: conv ${rec.id} (${rec.name}) is already reaped and archived`) : ALLOWED

/** SPEC.md 4.1 reap step 4: work a patch cannot carry (a repository inside the worktree) refuses the park before
 * anything changes. */
export const nestedRepoRefusal = (dir: string, paths: string[]): Decision =>
  paths.length === 0
    ? ALLOWED
    : refuse(
        'conflict',
        `refused: a patch cannot carry the files of a git repository inside the worktree: ${paths.join(', ')}; move ${paths.length === 1 ? 'it' : 'them'} out of ${dir} first`,
      )

/** SPEC.md 4.1 reap step 5: commits the upstream lacks are a warning, never a loss: the branch is kept. */
export function unpushedWarning(branch: string, unpushed: number): string | undefined {
  if (!unpushed) return undefined
  return `warning: ${branch} has ${unpushed} commit${unpushed === 1 ? '' : 's'} not on any remote; the branch is kept`
}

/** SPEC.md 4.1 reap step 5, on a detached HEAD: commits no branch, tag or remote holds are kept reachable from a ref. */
export const detachedKeptWarning = (unsaved: number, ref: string) =>
  `warning: the detached HEAD has ${unsaved} commit${unsaved === 1 ? '' : 's'} no branch holds; kept at ${ref}`

/** SPEC.md 4.1 reap step 5: the ref that keeps a detached HEAD's commits of a reaped lane. */
export const keptHeadRef = (name: string) => `refs/svc/kept/${name}`

/** SPEC.md 4.1 reap step 4: the parked patch's file name: `parked-<timestamp>.patch`. */
export const parkedPatchName = (now: Date) => `parked-${now.toISOString().replace(/[-:]/g, '').replace('.', '')}.patch`

/** SPEC.md 4.1 reap step 4: the ref that keeps a parked tree reachable, named after its patch file. */
export const parkedRef = (conv: string, patchName: string) =>
  `refs/svc/parked/${conv}/${patchName.replace(/^parked-/, '').replace(/\.patch$/, '')}`

/** SPEC.md 4.1 reap step 7: the message when archiving fails after a successful reap. */
export const archiveFailedMessage = (error: string, id: string) =>
  `reaped, but archiving failed: ${error}; archive conv ${id} from the Command Deck`

/** SPEC.md 4.1 reap: builders are reaped before the orchestrator lane that launched them (else they are left as
 * orphans). The order in which a whole run's lanes are reaped: the work first, its judges, then the orchestrator. */
export const REAP_ORDER: readonly Role[] = ['builder', 'critic', 'verifier', 'play', 'orchestrator']

/** Lanes in the order a whole run is reaped (REAP_ORDER); the same role keeps its order. */
export const inReapOrder = <L extends { role: string }>(lanes: readonly L[]): L[] =>
  [...lanes].sort((a, b) => REAP_ORDER.indexOf(a.role as Role) - REAP_ORDER.indexOf(b.role as Role))
