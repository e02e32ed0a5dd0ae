import type { ConversationRecord, LaneFacts } from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import {
  dirClaimRefusal,
  notOwnDirectory,
  pathFree,
  reusableDirectory,
  type LaunchIntent,
} from '../domain/lane-claim.js'
import { isGitBacked } from '../domain/keys.js'
import type { LanePlan } from '../domain/launch.js'
import { workDirOf } from '../domain/worker-rules.js'
import { shortLine, type KernelContext } from './context.js'
import { decided } from './decided.js'
import type { ProjectContext } from './project.js'
import { abandonDirectory, holdDirectory, releaseDirectory } from './launch-intents.js'
import { DEFAULT_REMOTE_LANES_ROOT, type HostEntry } from '../domain/hosts.js'
import { sharedWorktreeReapedBy } from '../domain/host-reap.js'
import { readRemoteWorktree, remoteReuseScript, remoteWorktreeScript } from '../domain/placement.js'
import { onHost } from './hosts.js'
import { beingReaped, holdForReuse } from './reaping-dirs.js'
import { awaitStart } from './await-start.js'
import { START_WAIT_LIMIT_MS } from '../domain/limits.js'

/** The directory of a lane or worker start: a new one made under an intent, or the one a `--reuse` continues in. */

/** What making a directory needs of a launch plan: a lane's (LanePlan) or a worker's (a builder's directory). */
type DirPlan = Pick<LanePlan, 'role' | 'branch' | 'startPoint' | 'at'> & Partial<Pick<LanePlan, 'dirName'>>

/** Launch into a directory of its own: held by an intent (services/launch-intents.ts) from before git or the lanes
 * root is touched until the record of the lane or worker claims it; what a failed launch made is taken back. */
export async function inNewDirectory(
  ctx: KernelContext,
  project: ProjectContext,
  plan: DirPlan,
  dir: string,
  fetched: Promise<void> | undefined,
  lane: (made: Made) => Promise<ConversationRecord>,
): Promise<ConversationRecord> {
  // What a launch cut short left at the path is not refused here: holdDirectory takes it back, or names its fix.
  refuseTaken(ctx, dir, ctx.io.files.exists(ctx.io.intents.intentPath(ctx.home, dir)))
  const intent = await intentOf(ctx, project, plan, dir, fetched)
  const held = await holdDirectory(ctx, intent)
  try {
    // Again, now that no other launch can be making it: a lane launched meanwhile may hold it.
    refuseTaken(ctx, dir, false)
  } catch (e) {
    await releaseDirectory(ctx, held)
    throw e
  }
  let made: Made
  try {
    made = await makeDirectory(ctx, project, intent)
  } catch (e) {
    // Nothing of it is left (makeDirectory takes back what it made before it throws), and what is at the path now
    // may be someone else's.
    await releaseDirectory(ctx, held)
    throw e
  }
  let rec: ConversationRecord
  try {
    rec = await lane(made)
  } catch (e) {
    await abandonDirectory(ctx, held)
    throw e
  }
  ctx.io.fault.point('launch-recorded')
  await releaseDirectory(ctx, held)
  return rec
}

export interface Made {
  /** The host the directory was made on (issue 27); absent: here. */
  host?: string
  repo?: string
  branch?: string
  at?: string
  made?: LaneFacts['made']
}

/** `--reuse`: the new conversation (`create`) in the directory of the earlier lane (or worker), if it is still the
 * one it was launched in and not being reaped. From that check until the new harness runs there (or failed to
 * start), the directory is held: a reap that begins meanwhile waits, and never removes it under the start. */
export async function inReusedDirectory(
  ctx: KernelContext,
  reuse: { rec: ConversationRecord },
  dir: string,
  create: (made: Made) => Promise<ConversationRecord>,
): Promise<ConversationRecord> {
  const made = reusedDirectory(ctx, reuse, dir)
  const release = holdForReuse(ctx, reuse.rec.cwd)
  let rec: ConversationRecord
  try {
    rec = await create(made)
  } catch (e) {
    release()
    throw e
  }
  // A conversation no process drives never leaves `starting`, and puts nothing in the directory.
  if (rec.harness === 'none') release()
  else void awaitStart(ctx, rec, START_WAIT_LIMIT_MS).finally(release)
  return rec
}

/** The directory of the earlier lane (or worker), if it is still the one it was launched in. */
function reusedDirectory(ctx: KernelContext, reuse: { rec: ConversationRecord }, dir: string): Made {
  const lane = workDirOf(reuse.rec)!
  decided(
    reusableDirectory(dir, reuse.rec.id, {
      reaped: Boolean(reuse.rec.reaped),
      exists: ctx.io.files.exists(dir),
      reaping: beingReaped(ctx, undefined, reuse.rec.cwd),
    }),
  )
  decided(notOwnDirectory(lane, dir, ctx.io.dirs.identityOf(dir)))
  return { repo: lane.repo, branch: lane.branch, at: lane.at, made: lane.made }
}

/** `--reuse` of a lane on a host (issue 27): its directory there, if it is not reaped and the host finds it still a
 * git worktree; the new lane runs there, on that host. */
export async function reusedOnHost(
  ctx: KernelContext,
  a: { host: string; entry: HostEntry; rec: ConversationRecord },
): Promise<Made> {
  const { host, rec } = a
  const lane = workDirOf(rec)!
  // Gone with the reap of a lane that shared it, too.
  const reaped = Boolean(rec.reaped || sharedWorktreeReapedBy(rec, ctx.store.all()))
  decided(
    reusableDirectory(`${host}:${rec.cwd}`, rec.id, { reaped, exists: true, reaping: beingReaped(ctx, host, rec.cwd) }),
  )
  // A look, not a fetch: the probe's deadline, so a host that stopped answering is said within it.
  const answer = await onHost(ctx, host, a.entry, remoteReuseScript(rec.cwd))
  decided(readRemoteWorktree(host, answer, false))
  return { host, repo: lane.repo, branch: lane.branch, at: lane.at }
}

/** A directory another lane holds, or anything already at the path (unless `interrupted`: a launch cut short left it),
 * refuses the launch. */
function refuseTaken(ctx: KernelContext, dir: string, interrupted: boolean): void {
  decided(dirClaimRefusal(dir, ctx.store.all()))
  decided(pathFree(dir, { exists: ctx.io.files.exists(dir), interrupted }))
}

/** What the launch is about to make, with every ref it was given resolved to a commit: a fresh fetch first (launch
 * rule 5), then the commit a branch is cut from or a detached worktree checked out at. */
async function intentOf(
  ctx: KernelContext,
  project: ProjectContext,
  plan: DirPlan,
  dir: string,
  fetched: Promise<void> | undefined,
): Promise<LaunchIntent> {
  const id = ctx.io.ids.uuid()
  if (!isGitBacked(plan.role)) return { id, dir, kind: 'play', at: ctx.io.clock.now() }
  const repo = project.checkout
  // The questions whose answers refuse a launch are asked only once git has failed: each is a git process, and run
  // beside the fetch they slowed it down.
  try {
    await (fetched ?? ctx.io.git.fetchOrigin(repo, ctx.io.clock.now()))
  } catch (e) {
    if (!(await ctx.io.git.isWorkTree(repo)))
      throw new SvcError('usage', `project ${project.key}: ${repo} is not a git checkout`)
    throw e
  }
  const ref = plan.branch ? plan.startPoint! : plan.at!
  const start = await ctx.io.git.revParse(repo, ref)
  if (!start && plan.branch)
    throw new SvcError('usage', `refused: cannot cut ${plan.branch} from ${shortLine(ref)}: no such commit`)
  if (!start) throw new SvcError('usage', `refused: --at ${shortLine(ref)} names no commit in ${repo}`)
  return {
    id,
    dir,
    kind: 'worktree',
    repo,
    ...(plan.branch ? { branch: plan.branch } : {}),
    start,
    at: ctx.io.clock.now(),
  }
}

/** Make the lane's directory as the intent says: a worktree at the resolved commit (git is given the commit, never
 * the ref as typed), or an empty play directory; and record what identifies it. On failure nothing it made is
 * left. */
async function makeDirectory(ctx: KernelContext, project: ProjectContext, intent: LaunchIntent): Promise<Made> {
  const { dir, id } = intent
  ctx.io.files.mkdir(project.lanesRoot, { recursive: true, mode: 0o755 })
  if (intent.kind === 'play') {
    ctx.io.files.mkdir(dir, { mode: 0o755 })
    return { made: { launch: id, dirId: ctx.io.dirs.dirIdOf(dir) } }
  }
  const repo = intent.repo!
  try {
    await ctx.io.git.worktreeAdd({
      repo,
      dir,
      branch: intent.branch,
      startPoint: intent.start!,
      sparse: project.entry.gauntlet?.sparse_checkout,
    })
  } catch (e) {
    // Asked only when git refused: a branch taken gets its own message.
    if (intent.branch && (await ctx.io.git.refExists(repo, `refs/heads/${intent.branch}`)))
      throw new SvcError('conflict', `refused: branch ${intent.branch} already exists`)
    throw e
  }
  ctx.io.fault.point('launch-worktree')
  try {
    await ctx.io.dirs.writeLaunchId(dir, id)
  } catch (e) {
    await ctx.io.git.undoWorktreeAdd(repo, dir, intent.branch)
    throw e
  }
  return { repo, ...(intent.branch ? { branch: intent.branch } : { at: intent.start }), made: { launch: id } }
}

/** Launch into a new worktree on a host (issue 27): home fetches and resolves the start commit as for a lane here
 * (launch rule 5), then the host fetches the project from its origin into its own clone and makes the worktree there
 * on the same branch rules. `lane` records the lane with the directory the host made. */
export async function onHostDirectory(
  ctx: KernelContext,
  a: { host: string; entry: HostEntry; project: ProjectContext; plan: DirPlan; fetched: Promise<void> | undefined },
  lane: (made: Made, dir: string) => Promise<ConversationRecord>,
): Promise<ConversationRecord> {
  const { host, project, plan } = a
  if (!isGitBacked(plan.role))
    throw new SvcError('usage', `refused: a ${plan.role} lane runs at home, not on host ${host}`)
  const intent = await intentOf(ctx, project, plan, `${host}:${plan.role}`, a.fetched)
  const origin = await ctx.io.git.gitTry(project.checkout, ['remote', 'get-url', 'origin'])
  if (!origin.ok || !origin.stdout.trim())
    throw new SvcError('usage', `refused: project ${project.key} has no origin for host ${host} to fetch from`)
  const dirName = plan.dirName!
  const answer = await onHost(
    ctx,
    host,
    a.entry,
    remoteWorktreeScript({
      root: a.entry.lanes_root ?? DEFAULT_REMOTE_LANES_ROOT,
      project: project.key,
      dirName,
      origin: origin.stdout.trim(),
      branch: intent.branch,
      start: intent.start!,
    }),
    { timeoutMs: ctx.io.timing('HOST_WORKTREE_MS', 120_000) },
  )
  const { dir } = decided(readRemoteWorktree(host, answer))
  return lane({ host, ...(intent.branch ? { branch: intent.branch } : { at: intent.start }) }, dir)
}
