import { isLive } from '../domain/activity.js'
import { REAP_STOP_LIMIT_MS } from '../domain/limits.js'
import { SvcError, isDiskFull } from '../domain/errors.js'
import { isGitBacked } from '../domain/keys.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { workDirOf } from '../domain/worker-rules.js'
import {
  archiveFailedMessage,
  countsAgainstReap,
  detachedKeptWarning,
  keptHeadRef,
  nestedRepoRefusal,
  parkedPatchName,
  parkedRef,
  planReap,
  unpushedWarning,
  type ReapFacts,
  type ReapPlan,
  type ReapPlanFacts,
} from '../domain/reap.js'
import { leftOutNote, leftOutOf, someOf } from '../domain/unseen-work.js'
import { notOwnDirectory } from '../domain/lane-claim.js'
import { convFiles } from '../io/home.js'
import type { Files } from '../io/adapters.js'
import { dirname, join, resolve as resolvePath } from '../io/paths.js'
import type { PortInput, ReapResult } from '../port/port.js'
import { KeyedQueue } from '../queue/serial.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'
import type { Refusal } from '../domain/refusal.js'
import { stopConversation } from './conversations.js'
import type { GitFactsCache } from './git-facts.js'
import { laneViews } from './lane-list.js'
import { reapOnHost } from './host-reap.js'
import { whileReaping } from './reaping-dirs.js'

/** SPEC.md section 8: how long a reap waits for a live harness to stop (a test build may shorten it). */
const reapStopMs = (ctx: KernelContext) => ctx.io.timing('REAP_STOP', REAP_STOP_LIMIT_MS)
const reaps = new KeyedQueue()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Where the lane's directory really is now: its real path; for a dangling symlink, where the link points. */
function realDir(files: Files, dir: string): string | undefined {
  if (!files.entryExists(dir)) return undefined
  try {
    return files.realpath(dir)
  } catch {
    return resolvePath(dirname(dir), files.readlink(dir))
  }
}

/** The first `.git` anywhere inside a play directory (symlinks are not followed), relative to it. */
function findDotGit(files: Files, dir: string, rel = ''): string | undefined {
  let entries
  try {
    entries = files.entriesSync(join(dir, rel))
  } catch {
    return undefined
  }
  for (const e of entries) if (e.name === '.git') return join(rel, e.name)
  for (const e of entries) {
    if (!e.isDirectory) continue
    const found = findDotGit(files, dir, join(rel, e.name))
    if (found) return found
  }
  return undefined
}

/** What the reap needs to decide, read now, before the stop (`stopped` false) or after it. The kernel itself and what
 * it runs (git, and the filters git runs in the lane's directory for a status), never count as processes using the
 * lane. */
async function gather(
  ctx: KernelContext,
  rec: ConversationRecord,
  park: boolean,
  stopped: boolean,
): Promise<ReapFacts & { branch?: string; notOwn?: Refusal }> {
  // A directory an earlier reap removed is gone for good: whatever is at its path now belongs to someone else.
  const dirReal = rec.reaped ? undefined : realDir(ctx.io.files, rec.cwd)
  const own = dirReal === rec.cwd
  const lane = workDirOf(rec)!
  const gitBacked = isGitBacked(lane.role)
  const gitDir = gitBacked && own ? ctx.io.git.worktreeGitDir(rec.cwd) : undefined
  // A directory that is no worktree any more is refused as such (reapRefusal); one that is, must be the lane's own.
  const claim =
    own && (!gitBacked || gitDir) ? notOwnDirectory(lane, rec.cwd, ctx.io.dirs.identityOf(rec.cwd)) : undefined
  const notOwn = claim && !claim.ok ? claim : undefined
  const worktree = gitDir !== undefined && !notOwn
  const [status, unseen, converted] = worktree
    ? await Promise.all([
        ctx.io.git.statusFacts(rec.cwd),
        ctx.io.git.unseenWork(rec.cwd, rec.createdAt),
        ctx.io.git.convertedFiles(rec.cwd),
      ])
    : []
  const unseenPaths = unseen ? [...unseen.flagged, ...unseen.hidden, ...converted!] : []
  const state = ctx.facts.get(rec.name).state
  const pids = { runnerPid: state?.runner?.pid, harnessPid: state?.harness?.pid }
  const processes = dirReal
    ? (await ctx.io.procs.processesInside(dirReal)).filter(
        (p) =>
          p.pid !== process.pid &&
          p.ppid !== process.pid &&
          !ctx.io.procs.startedWithin(p, process.pid) &&
          countsAgainstReap(p, stopped, pids),
      )
    : []
  return {
    role: lane.role,
    dir: rec.cwd,
    dirReal,
    rootReal: lane.root,
    harnessAlive: stopped && ctx.runners.harnessAlive(rec.name),
    processes,
    dirtyPaths: (status?.dirtyPaths ?? 0) + unseenPaths.length,
    unseenPaths,
    park,
    ...(worktree ? lockOf(ctx, rec.cwd) : {}),
    ...(worktree ? { submodules: await ctx.io.git.checkedOutSubmodules(rec.cwd) } : {}),
    // A git command of the lane may hold the index lock until the stop; after it, a lock left behind is checked.
    ...(worktree && stopped ? indexLockOf(ctx, rec.cwd) : {}),
    worktree,
    branch: status?.branch,
    ...(notOwn ? { notOwn } : {}),
  }
}

/** A locked worktree (git worktree lock, or an add still initializing) has a `locked` file holding the reason. */
function lockOf(ctx: KernelContext, dir: string): { locked?: string } {
  const files = ctx.io.files
  const gitDir = ctx.io.git.worktreeGitDir(dir)
  if (!gitDir || !files.exists(join(gitDir, 'locked'))) return {}
  return { locked: files.readTextSync(join(gitDir, 'locked')).trim() }
}

/** A leftover index.lock would make git fail halfway through cleaning the tree, after the park. */
function indexLockOf(ctx: KernelContext, dir: string): { indexLock?: string } {
  const path = join(ctx.io.git.worktreeGitDir(dir)!, 'index.lock')
  return ctx.io.files.exists(path) ? { indexLock: path } : {}
}

/** What step 1 stops: a live lane, or a runner still there. */
const toStop = (ctx: KernelContext, rec: ConversationRecord) =>
  isLive(ctx.view(rec).activity) || ctx.runners.runnerAlive(rec.name)

/** Step 1 has nothing to do (nothing to stop, no harness to wait for): the facts read now are those after it, so
 * the reap reads them once. */
const nothingToStop = (ctx: KernelContext, rec: ConversationRecord) =>
  !toStop(ctx, rec) && !ctx.runners.harnessAlive(rec.name)

/** Step 1: stop a live lane through the conversation stop mechanism, and give its harness up to 30 s to be gone. */
async function stopLane(ctx: KernelContext, rec: ConversationRecord): Promise<void> {
  const limitMs = reapStopMs(ctx)
  const deadline = ctx.io.clock.now() + limitMs
  if (toStop(ctx, rec)) {
    try {
      await stopConversation(ctx, rec, limitMs)
    } catch {
      // Whether the harness outlived the stop is what decides; it is checked below.
    }
  }
  // A lane's host that stops answering sends no end: waiting for it would only use up the limit.
  const host = rec.lane?.host
  const lost = () => host !== undefined && ctx.hostLanes.lost(host, ctx.io.clock.now()) !== undefined
  while (ctx.runners.harnessAlive(rec.name) && ctx.io.clock.now() < deadline && !lost()) await sleep(100)
}

/** Save every change of the worktree to parked-<timestamp>.patch, prove the patch file reproduces it, keep its
 * tree reachable from a ref, check once more that nothing changed meanwhile, and only then clean the tree. */
async function parkWork(
  ctx: KernelContext,
  rec: ConversationRecord,
  paths: number,
): Promise<NonNullable<ReapResult['parked']>> {
  const dir = rec.cwd
  // The patch goes from the bytes a checkout of HEAD wrote to the bytes on disk, both raw.
  const base = await ctx.io.git.checkoutTree(dir)
  const tree = await ctx.io.git.snapshotTree(dir, rec.createdAt)
  const nested = await ctx.io.git.addedGitlinks(dir, tree)
  decided(nestedRepoRefusal(dir, nested))
  const name = parkedPatchName(new Date(ctx.io.clock.now()))
  const path = join(convFiles(ctx.home, rec.name).dir, name)
  const made = await fullDiskSaid(ctx, dir, dirname(path), () =>
    ctx.io.writes.publishFileOnce(path, async (tmp) => {
      await ctx.io.git.diffBinaryToFile(dir, base, tree, tmp)
      if ((await ctx.io.git.treeFromPatch(dir, tmp, base)) !== tree)
        throw new SvcError('conflict', 'refused: the parked patch does not reproduce the worktree; nothing was cleaned')
      // The proof on the bytes themselves: every file the patch gives back is, byte for byte, the file on disk.
      const differ = await ctx.io.git.rawMismatches(dir, tree, base)
      if (differ.length)
        throw new SvcError(
          'conflict',
          `refused: the parked patch does not give back the bytes on disk of ${someOf(differ, 3)}; nothing was cleaned`,
        )
    }),
  )
  if (!made) throw new SvcError('conflict', `refused: ${path} already exists; nothing was cleaned`)
  const ref = parkedRef(rec.name, name)
  await ctx.io.git.keepTree(
    dir,
    tree,
    ref,
    `svc: parked work of conv ${rec.id} (${rec.name})\n\nThe patch: ${path}`,
    base,
  )
  // Just before the tree is cleaned: it still holds exactly what the patch reproduces.
  if ((await ctx.io.git.snapshotTree(dir, rec.createdAt)) !== tree)
    throw new SvcError(
      'conflict',
      `refused: the worktree changed while it was parked; the patch is kept at ${path} and ${ref}, nothing was cleaned`,
    )
  await ctx.io.git.cleanTree(dir)
  return { patch: path, ref, paths }
}

/** A park that found the disk full says so on one line; nothing was cleaned, the worktree is as it was. A program
 * that wrote the patch may not have said its write failed: a failed proof with less free space left than a page
 * is the disk's doing too. */
async function fullDiskSaid<T>(ctx: KernelContext, dir: string, patchDir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    if (isDiskFull(e) || ctx.io.files.freeBytes(patchDir) < 64 * 1024)
      throw new SvcError(
        'unavailable',
        `refused: disk full while parking ${dir}; nothing was cleaned: free some space and reap again`,
      )
    throw e
  }
}

/** Step 5: the branch is never deleted; commits a detached HEAD alone holds are kept reachable from a ref. */
async function keepCommits(
  ctx: KernelContext,
  rec: ConversationRecord,
  branch: string | undefined,
): Promise<string | undefined> {
  if (branch) return unpushedWarning(branch, await ctx.io.git.unpushedCount(rec.cwd))
  const unsaved = await ctx.io.git.unreachableWithoutHead(rec.cwd)
  if (!unsaved) return undefined
  const ref = keptHeadRef(rec.name)
  await ctx.io.git.keepHead(rec.cwd, ref)
  return detachedKeptWarning(unsaved, ref)
}

/** `svc lane reap`: steps 1-7 of SPEC.md 4.1, in order. It either completes with every byte kept, or refuses and
 * archives nothing. */
export async function laneReap(
  ctx: KernelContext,
  cache: GitFactsCache,
  input: PortInput<'laneReap'>,
): Promise<ReapResult> {
  const rec = ctx.resolveLane(input.lane)
  await ctx.checkCommand(rec, 'svc lane reap')
  const { view, ...done } = await reapDirectory(
    ctx,
    cache,
    rec,
    input,
    async () => (await laneViews(ctx, cache, (r) => r.id === rec.id))[0],
  )
  return { lane: view, ...done }
}

/** The reap of a lane's or a worker's directory (workDirOf): the same steps and guarantees for both. `view` gives
 * the reaped one's view once it is done. The steps and refusals are the rulebook's (planReap); this carries them
 * out. */
export async function reapDirectory<V>(
  ctx: KernelContext,
  cache: GitFactsCache,
  rec: ConversationRecord,
  input: { park?: boolean; keep?: boolean },
  view: () => Promise<V>,
): Promise<Omit<ReapResult, 'lane'> & { view: V }> {
  return whileReaping(ctx, rec, () =>
    reaps.run(rec.name, async () => {
      // A lane on a host: nothing here is its directory; its host reaps it once its bytes are held here.
      const done = rec.lane?.host
        ? await reapRemote(ctx, rec, input)
        : await carryOut(ctx, cache, rec, input, nothingToStop(ctx, rec))
      ctx.emit({ name: rec.name, what: 'record' })
      return { view: await view(), ...done }
    }),
  )
}

/** The facts the reap plan is made from, read now (before the stop, or after it), and the plan made from them. */
async function planNow(
  ctx: KernelContext,
  rec: ConversationRecord,
  input: { park?: boolean; keep?: boolean },
  stopped: boolean,
): Promise<ReapPlan> {
  // The record as stored now: a reap queued behind another sees what that one did.
  const conv = ctx.store.get(rec.id) ?? rec
  const { branch, notOwn, ...dir } = await gather(ctx, conv, Boolean(input.park), stopped)
  const play = !isGitBacked(dir.role) && dir.dirReal !== undefined && stopped
  const dotGit = play ? findDotGit(ctx.io.files, conv.cwd) : undefined
  const facts: ReapPlanFacts = {
    ...dir,
    conv,
    stopped,
    ...(notOwn ? { notOwn } : {}),
    ...(branch ? { branch } : {}),
    ...(workDirOf(rec)!.repo ? { repo: workDirOf(rec)!.repo } : {}),
    ...(dotGit ? { dotGit } : {}),
    reappeared: Boolean(conv.reaped) && ctx.io.files.exists(conv.cwd),
    keep: Boolean(input.keep),
    limitS: reapStopMs(ctx) / 1000,
  }
  // What can be refused before the lane is touched, is refused before it is touched.
  return decided(planReap(facts))
}

/** Step 7: archive the reaped lane; a failure is said (the message), and leaves the reap done. */
async function archiveReaped(ctx: KernelContext, rec: ConversationRecord): Promise<string | undefined> {
  try {
    if (ctx.io.fault.flag('ARCHIVE')) throw new Error('injected archive failure')
    await ctx.store.update(rec.id, { archived: { at: ctx.io.clock.now() } })
    return undefined
  } catch (e) {
    return archiveFailedMessage((e as Error).message, rec.id)
  }
}

/** The reap of a lane on a host (services/host-reap.ts), then its archive as here. */
async function reapRemote(
  ctx: KernelContext,
  rec: ConversationRecord,
  input: { park?: boolean; keep?: boolean },
): Promise<Omit<ReapResult, 'lane'>> {
  const done = await reapOnHost(ctx, rec, input, () => stopLane(ctx, rec), reapStopMs(ctx) / 1000)
  const archiveError = input.keep ? undefined : await archiveReaped(ctx, rec)
  return { ...done, archived: !input.keep && !archiveError, ...(archiveError ? { archiveError } : {}) }
}

/** Carries out the reap plan's steps in order; a refusal, or a failure before the record, leaves the lane
 * unarchived. */
async function carryOut(
  ctx: KernelContext,
  cache: GitFactsCache,
  rec: ConversationRecord,
  input: { park?: boolean; keep?: boolean },
  stopped: boolean,
): Promise<Omit<ReapResult, 'lane'>> {
  const { steps } = await planNow(ctx, rec, input, stopped)
  const warnings: string[] = []
  let parked: ReapResult['parked']
  let removed: string | null = null
  let archived = false
  let archiveError: string | undefined
  for (const step of steps) {
    switch (step.do) {
      case 'stop':
        await stopLane(ctx, rec)
        break
      case 'look-again':
        return carryOut(ctx, cache, rec, input, true)
      case 'name-left-out': {
        // Named before the park: cleaning the tree removes them too.
        const note = leftOutNote(leftOutOf(await ctx.io.git.ignoredAtLaunch(rec.cwd, rec.createdAt)))
        if (note) warnings.push(note)
        break
      }
      case 'park':
        parked = await parkWork(ctx, rec, step.paths)
        break
      case 'keep-commits': {
        const w = await keepCommits(ctx, rec, step.branch)
        if (w) warnings.push(w)
        break
      }
      case 'remove-worktree':
        await ctx.io.git.worktreeRemove(step.repo, rec.cwd)
        cache.forget(rec.cwd)
        removed = rec.cwd
        break
      case 'remove-directory':
        await ctx.io.files.removeTree(rec.cwd)
        removed = rec.cwd
        break
      case 'prune':
        await ctx.io.git.worktreePrune(step.repo).catch(() => '')
        break
      case 'warn':
        warnings.push(step.message)
        break
      case 'record-reaped':
        await ctx.store.update(rec.id, { reaped: { at: ctx.io.clock.now() } })
        break
      case 'archive':
        archiveError = await archiveReaped(ctx, rec)
        archived = archiveError === undefined
        break
    }
  }
  return { removed, ...(parked ? { parked } : {}), warnings, archived, ...(archiveError ? { archiveError } : {}) }
}
