import { buildContract } from '../domain/contract.js'
import { briefGiven, type ConversationRecord, type LaneFacts } from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import { startLine } from '../domain/list-show.js'
import { isGitBacked } from '../domain/keys.js'
import { REPLACE_STOP_LIMIT_MS, START_WAIT_LIMIT_MS } from '../domain/limits.js'
import { checkRequest, effectiveLauncher, laneConvName, planLaunch, type LanePlan } from '../domain/launch.js'
import { baseRef, checkoutFound, lanesRootFits, lanesRootProblem, lanesRootSetting, projectEntry, roleConfig } from '../domain/configuration.js'
import type { ProjectEntry } from '../io/config.js'
import type { Files } from '../io/adapters.js'
import { basename, dirname, join, resolve as resolvePath } from '../io/paths.js'
import type { PortInput, PortOutputs } from '../port.js'
import { KeyedQueue } from '../serial.js'
import { awaitStart } from './await-start.js'
import { decided } from './decided.js'
import { projectListed, projectNamed } from '../domain/projects.js'
import type { KernelContext } from './context.js'
import { createConversation, stopConversation } from './conversations.js'
import { inNewDirectory, reusedDirectory, type Made } from './lane-start-dir.js'
import { laneRows } from './lane-rows.js'

/** Launches of one run, key and role, one at a time (launch rule 3: one live lane each). */
const starts = new KeyedQueue()

/** Real path of a path that may not exist yet: the deepest existing ancestor resolved, the rest appended. */
function realPathOf(files: Files, p: string): string {
  const abs = resolvePath(p)
  let head = abs
  const tail: string[] = []
  while (!files.exists(head)) {
    tail.unshift(basename(head))
    const up = dirname(head)
    if (up === head) break
    head = up
  }
  return join(files.realpath(head), ...tail)
}

export interface ProjectContext {
  key: string
  entry: ProjectEntry
  checkout: string
  lanesRoot: string
}

/** The project of a launch: --project, else the launcher's, else the one whose checkout holds the caller's cwd. */
export async function resolveProject(ctx: KernelContext, requested: string | undefined, launcher: ConversationRecord, cwd: string | undefined): Promise<ProjectContext> {
  const files = ctx.io.files
  const projects = await ctx.config.projects()
  let named = requested ?? launcher.project
  if (!named && cwd) named = ctx.config.holding(projects, realPathOf(files, cwd))
  const { key } = decided(projectNamed(named, 'this launch'))
  const { entry } = decided(projectListed(key, projectEntry(projects, key), ctx.config.path))
  decided(checkoutFound(ctx.config.path, key, entry.path, files.exists(entry.path)))
  const checkout = files.realpath(entry.path)
  const { lanesRoot, problem } = lanesRootOf(files, entry, checkout)
  decided(lanesRootFits(ctx.config.path, key, problem))
  return { key, entry, checkout, lanesRoot }
}

/** How long a --replace gives the live one to stop (a test build may shorten it). */
export const replaceStopMs = (ctx: KernelContext) => ctx.io.timing('REPLACE_STOP', REPLACE_STOP_LIMIT_MS)

/** The base ref of a project's launches and diffs (launch rule 5): only asks origin's HEAD when no default_branch is set. */
export const baseOf = async (ctx: KernelContext, entry: Pick<ProjectEntry, 'default_branch'> | undefined, repo: string) =>
  baseRef(entry?.default_branch, entry?.default_branch === undefined ? await ctx.io.git.originHead(repo) : undefined)

/** A project's lanes root (configured, else a sibling of the checkout), as a real path, and the rule it breaks.
 * A configured `~/…` is under the home and a relative one is relative to the checkout, never to wherever the
 * kernel happened to be started. */
export function lanesRootOf(files: Files, entry: ProjectEntry, checkout: string): { lanesRoot: string; problem?: string } {
  const home = files.userHome()
  const lanesRoot = realPathOf(files, resolvePath(checkout, lanesRootSetting(checkout, entry.gauntlet?.lanes_root, home)))
  return { lanesRoot, problem: lanesRootProblem(lanesRoot, realPathOf(files, home), checkout, realPathOf(files, '/tmp')) }
}

/** The brief of a lane or worker: exactly one of --brief or --prompt, not empty. */
export const readBrief = (input: { brief?: string; prompt?: string }): string => decided(briefGiven(input)).brief

/** `svc lane start`: every launch rule, then the directory, the brief, the conversation with its contract. */
export async function laneStart(ctx: KernelContext, input: PortInput<'laneStart'>): Promise<PortOutputs['laneStart']> {
  const brief = readBrief(input)
  const launcherRef = input.conversation ?? input.parent
  const launcher = ctx.caller(launcherRef, 'svc lane start', 'run svc lane start inside a conversation, or pass --parent <conv>')
  const parent = input.parent ? ctx.resolve(input.parent) : launcher
  const { run, key } = decided(checkRequest({ ...input, role: input.role }, launcher, effectiveLauncher(launcher.id, (id) => ctx.store.get(id))))
  if (parent.id !== launcher.id) decided(checkRequest({ ...input, run }, parent, effectiveLauncher(parent.id, (id) => ctx.store.get(id))))
  // The launcher is acted as; a parent it names is only where the lane nests (checked above as a launcher too).
  ctx.checkActingAs(launcher, input.conversationKey, 'svc lane start')
  const project = await resolveProject(ctx, input.project, launcher, input.cwd)
  const defaults = roleConfig(project.entry, input.role) ?? {}
  // Launch rule 5: a new worktree is cut from a fresh fetch. The fetch begins now, beside the steps that need no
  // fetched ref; a launch refused meanwhile leaves it to finish on its own.
  const fetched = isGitBacked(input.role) && !input.reuse ? ctx.io.git.fetchOrigin(project.checkout, ctx.io.clock.now()) : undefined
  fetched?.catch(() => {})
  const base = await baseOf(ctx, project.entry, project.checkout)

  const rec = await starts.run(`${run}\0${key}\0${input.role}`, async () => {
    let { plan } = decided(planLaunch(input, run, key, await laneRows(ctx, run), defaults, base, ctx.io.clock.now()))
    if (plan.replace) {
      await stopConversation(ctx, plan.replace.rec, replaceStopMs(ctx))
      plan = decided(planLaunch({ ...input, replace: false }, run, key, await laneRows(ctx, run), defaults, base, ctx.io.clock.now())).plan
    }
    const dir = join(project.lanesRoot, plan.dirName)
    const lane = (made: Made) => createLane(ctx, { plan, dir, brief, input, launcher: parent, project: project.key, made })
    if (plan.reuse) return lane(reusedDirectory(ctx, plan.reuse, dir))
    return inNewDirectory(ctx, project, plan, dir, fetched, lane)
  })
  // A conversation no process drives can never leave `starting`: waiting for it would only burn the 180 s.
  const view = input.noWait || rec.harness === 'none' ? ctx.view(rec) : await awaitStart(ctx, rec, START_WAIT_LIMIT_MS)
  if (view.activity === 'failed-to-start') throw new SvcError('conflict', `lane ${run}/${key} ${input.role} i${rec.lane!.iteration} (conv ${rec.id}) failed to start: ${view.evidence.detail}`)
  return { lane: view, line: startLine({ ...rec.lane!, id: rec.id, name: rec.name }, rec.cwd) }
}

async function createLane(
  ctx: KernelContext,
  a: { plan: LanePlan; dir: string; brief: string; input: PortInput<'laneStart'>; launcher: ConversationRecord; project: string; made: Made },
): Promise<ConversationRecord> {
  const { plan, made } = a
  const judged = plan.judged ? { id: plan.judged.row.rec.id, key: plan.key, iteration: plan.judged.iteration, sha: made.at ?? plan.judged.sha } : undefined
  const lane: LaneFacts = {
    run: plan.run,
    key: plan.key,
    role: plan.role,
    ...(judged ? { for: judged } : {}),
    dir: plan.dirName,
    root: dirname(a.dir),
    iteration: plan.iteration,
    ...(made.repo ? { repo: made.repo } : {}),
    ...(made.branch ? { branch: made.branch } : {}),
    ...(made.at ? { at: made.at } : {}),
    ...(made.made ? { made: made.made } : {}),
    ...(plan.answers ? { answers: plan.answers } : {}),
  }
  const contract = buildContract({
    role: plan.role,
    run: plan.run,
    key: plan.key,
    iteration: plan.iteration,
    cwd: a.dir,
    branch: made.branch,
    at: made.at,
    brief: a.brief,
    judged: judged && { key: judged.key, iteration: judged.iteration, sha: judged.sha },
    answers: plan.answers,
  })
  return createConversation(ctx, {
    fallbackName: (_id, attempt) => laneConvName(plan.run, plan.key, plan.role, plan.iteration, attempt),
    parent: a.launcher.id,
    lane,
    project: a.project,
    harness: plan.harness,
    model: plan.model,
    effort: plan.effort,
    title: a.input.title,
    cwd: a.dir,
    firstMessage: contract,
    files: { 'lane-brief.md': a.brief },
    play: plan.role === 'play',
  })
}
