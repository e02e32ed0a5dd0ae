import { isGitBacked, type Role } from './keys.js'
import { isWithin } from './configuration.js'
import { ALLOWED, allow, refuse, type Decision, type Refusal } from './refusal.js'
import { someOf } from './unseen-work.js'
import { reappearedWarning } from './lane-claim.js'

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
export interface ProcessInside {
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
      `${inCwd.length === 1 ? 'a process has its' : `${inCwd.length} processes have their`} working directory ` +
        `inside ${dir}: ${inCwd.map(named).join(', ')}`,
    )
  if (holding.length) {
    const held = holding.map((p) => `${named(p)} holding ${someOf([...p.files].sort(), filesShown)}`)
    parts.push(
      `${holding.length === 1 ? 'a process holds' : `${holding.length} processes hold`} files open inside ${dir}: ` +
        `${held.join('; ')}`,
    )
  }
  return parts.length ? `refused: ${parts.join('; ')}` : undefined
}

/** SPEC.md 4.1 reap step 1: the harness outlived the stop. */
export const harnessStillAlive = (limitS: number) => `refused: the harness is still alive after ${limitS} s`

/** SPEC.md 4.1 reap steps 1-4, in order: the first refusal (its message), or undefined when the reap may go on. */
function firstRefusal(f: ReapFacts, limitS: number): string | undefined {
  if (f.harnessAlive) return harnessStillAlive(limitS)
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
    return (
      `refused: the worktree ${f.dirReal} is locked (${f.locked || 'no reason given'}); unlock it with git ` +
      `worktree unlock once nothing is using it`
    )
  // A patch records a submodule's commit, never its files, and git removes no worktree that holds one.
  if (f.submodules?.length)
    return (
      `refused: ${f.dirReal} holds ` +
      `${f.submodules.length === 1 ? 'a checked-out submodule' : `${f.submodules.length} checked-out submodules`} (` +
      `${someOf(f.submodules, 3)}) whose work a patch cannot carry; commit and push ` +
      `${f.submodules.length === 1 ? 'its' : 'their'} work, run git submodule deinit --all in ${f.dirReal}, then ` +
      `reap again`
    )
  if (f.dirtyPaths > 0 && !f.park)
    return (
      `refused: ${f.dirReal} has uncommitted changes (${f.dirtyPaths} path${f.dirtyPaths === 1 ? '' : 's'}` +
      `${unseenNote(f.unseenPaths ?? [])}); commit them, or pass --park to save them to a patch`
    )
  // A park cleans the tree, which git refuses while an index lock is there; a clean tree is removed all the same.
  if (f.dirtyPaths > 0 && f.indexLock !== undefined)
    return (
      `refused: ${f.indexLock} exists, so git cannot change the worktree; if no git command is running in ` +
      `${f.dirReal}, remove that file and reap again`
    )
  return undefined
}

/** SPEC.md 4.1 reap steps 1-4, in order: the reap goes on, or is refused (and archives nothing). */
export function reapRefusal(f: ReapFacts, limitS: number): Decision {
  const message = firstRefusal(f, limitS)
  return message === undefined ? ALLOWED : refuse('conflict', message)
}

/** What the reap plan is made from: the directory's facts (read before the stop, or after it) and the lane's record. */
export interface ReapPlanFacts extends ReapFacts {
  /** The lane's record as stored now: `archived` refuses the reap, `reaped` says an earlier reap removed the
   * directory. */
  conv: { id: string; name: string; archived?: unknown; reaped?: unknown }
  /** The stop of step 1 is done: the facts were read after it. */
  stopped: boolean
  /** The directory at the lane's path is not the one it was launched in (lane-claim's notOwnDirectory). */
  notOwn?: Refusal
  /** Git-backed lanes: the branch the worktree is on; none for a detached HEAD. */
  branch?: string
  /** The repository the worktree was added to, when recorded. */
  repo?: string
  /** Play lanes, after the stop: the first `.git` inside the directory, relative to it. */
  dotGit?: string
  /** Something is at the lane's path again, though an earlier reap removed the directory. */
  reappeared?: boolean
  /** `--keep`: the ended conversation stays listed, not archived. */
  keep: boolean
  /** How long the stop waits for the harness, in seconds (SPEC.md 8). */
  limitS: number
}

/** One step of a reap, carried out by the reap service in the plan's order. */
export type ReapStep =
  /** Step 1: stop a live lane and wait for its harness, then read the facts again and plan again. */
  | { do: 'stop' }
  | { do: 'look-again' }
  /** Name the files ignored since the launch, which cleaning the tree removes too (read before the park). */
  | { do: 'name-left-out' }
  /** Step 4: save every change to the parked patch, prove it, keep its tree at a ref, then clean the tree. */
  | { do: 'park'; paths: number }
  /** Step 5: warn of commits the upstream lacks (a branch), or keep a detached HEAD's commits at a ref. */
  | { do: 'keep-commits'; branch?: string }
  /** Step 6: the non-forced worktree remove, from the repository it was added to. */
  | { do: 'remove-worktree'; repo: string }
  /** Step 6: a play directory with no `.git` inside. */
  | { do: 'remove-directory' }
  /** Nothing left to remove: the repository's worktree list forgets the gone directory. */
  | { do: 'prune'; repo: string }
  | { do: 'warn'; message: string }
  | { do: 'record-reaped' }
  /** Step 7 (not with --keep); a failure here leaves the reap done. */
  | { do: 'archive' }

/** What a reap leaves in place, by SPEC.md 4.1 reap: the branch, a detached HEAD's commits, parked work, a directory
 * it may not remove. */
export type ReapKept =
  | { what: 'branch'; name: string }
  | { what: 'detached-head'; ref: string }
  | { what: 'parked-work'; paths: number }
  | { what: 'directory'; path: string }

export interface ReapPlan {
  steps: ReapStep[]
  kept: ReapKept[]
}

/** SPEC.md 4.1 reap, steps 1-7 in order: the reap's refusal, or its steps and what it keeps. Before the stop the plan
 * is the stop and a second look; after it, the whole reap. A refusal at either look archives nothing. */
export function planReap(f: ReapPlanFacts): Decision<ReapPlan> {
  const again = notYetReaped(f.conv)
  if (!again.ok) return again
  if (f.notOwn) return f.notOwn
  const refused = reapRefusal(f, f.limitS)
  if (!refused.ok) return refused
  if (!f.stopped) return allow({ steps: [{ do: 'stop' }, { do: 'look-again' }], kept: [] })
  const steps: ReapStep[] = []
  const kept: ReapKept[] = []
  const gitBacked = isGitBacked(f.role)
  if (f.dirReal !== undefined && gitBacked) {
    steps.push({ do: 'name-left-out' })
    if (f.dirtyPaths > 0) {
      steps.push({ do: 'park', paths: f.dirtyPaths })
      kept.push({ what: 'parked-work', paths: f.dirtyPaths })
    }
    steps.push({ do: 'keep-commits', ...(f.branch ? { branch: f.branch } : {}) })
    kept.push(f.branch ? { what: 'branch', name: f.branch } : { what: 'detached-head', ref: keptHeadRef(f.conv.name) })
    steps.push({ do: 'remove-worktree', repo: f.repo ?? f.dir })
  } else if (f.dirReal !== undefined) {
    if (f.dotGit !== undefined) {
      steps.push({ do: 'warn', message: playKeptWarning(f.dir, f.dotGit) })
      kept.push({ what: 'directory', path: f.dir })
    } else steps.push({ do: 'remove-directory' })
  } else {
    steps.push({ do: 'warn', message: f.reappeared ? reappearedWarning(f.dir) : alreadyGoneWarning(f.dir) })
    if (f.reappeared) kept.push({ what: 'directory', path: f.dir })
    if (f.repo && gitBacked) steps.push({ do: 'prune', repo: f.repo })
  }
  if (!f.conv.reaped) steps.push({ do: 'record-reaped' })
  if (!f.keep) steps.push({ do: 'archive' })
  return allow({ steps, kept })
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

/** SPEC.md 4.1 reap step 6 (nothing left to remove): a lane whose directory was already gone reaps, with this
 * warning. */
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
        `refused: a patch cannot carry the files of a git repository inside the worktree: ${paths.join(', ')}; move ` +
          `${paths.length === 1 ? 'it' : 'them'} out of ${dir} first`,
      )

/** SPEC.md 4.1 reap step 5: commits the upstream lacks are a warning, never a loss: the branch is kept. */
export function unpushedWarning(branch: string, unpushed: number): string | undefined {
  if (!unpushed) return undefined
  return `warning: ${branch} has ${unpushed} commit${unpushed === 1 ? '' : 's'} not on any remote; the branch is kept`
}

/** SPEC.md 4.1 reap step 5, on a detached HEAD: commits no branch, tag or remote holds are kept reachable from a
 * ref. */
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
