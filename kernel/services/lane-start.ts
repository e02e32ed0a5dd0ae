import { buildContract } from '../domain/contract.js'
import { briefGiven, type ConversationRecord, type LaneFacts } from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import { startLine } from '../domain/list-show.js'
import { isGitBacked } from '../domain/keys.js'
import { REPLACE_STOP_LIMIT_MS, START_WAIT_LIMIT_MS } from '../domain/limits.js'
import { checkRequest, effectiveLauncher, laneConvName, planLaunch, type LanePlan } from '../domain/launch.js'
import { roleConfig } from '../domain/configuration.js'
import { dirname, join } from '../io/paths.js'
import type { PortInput, PortOutputs } from '../port/port.js'
import { KeyedQueue } from '../queue/serial.js'
import { awaitStart } from './await-start.js'
import { decided } from './decided.js'
import type { KernelContext } from './context.js'
import { createConversation, stopConversation } from './conversations.js'
import { inNewDirectory, inReusedDirectory, onHostDirectory, reusedOnHost, type Made } from './lane-start-dir.js'
import { readHosts } from './hosts.js'
import { hostEntry } from '../domain/hosts.js'
import { placeLane, placeReuse } from '../domain/placement.js'
import { laneRows } from './lane-rows.js'
import { baseOf, resolveProject } from './project.js'

/** Launches of one run, key and role, one at a time (launch rule 3: one live lane each). */
const starts = new KeyedQueue()

/** How long a --replace gives the live one to stop (a test build may shorten it). */
export const replaceStopMs = (ctx: KernelContext) => ctx.io.timing('REPLACE_STOP', REPLACE_STOP_LIMIT_MS)

/** The brief of a lane or worker: exactly one of --brief or --prompt, not empty. */
export const readBrief = (input: { brief?: string; prompt?: string }): string => decided(briefGiven(input)).brief

/** `svc lane start`: every launch rule, then the directory, the brief, the conversation with its contract. */
export async function laneStart(ctx: KernelContext, input: PortInput<'laneStart'>): Promise<PortOutputs['laneStart']> {
  const brief = readBrief(input)
  const launcherRef = input.conversation ?? input.parent
  const launcher = await ctx.caller(
    launcherRef,
    'svc lane start',
    'run svc lane start inside a conversation, or pass --parent <conv>',
  )
  const parent = input.parent ? ctx.resolve(input.parent) : launcher
  const { run, key } = decided(
    checkRequest(
      { ...input, role: input.role },
      launcher,
      effectiveLauncher(launcher.id, (id) => ctx.store.get(id)),
    ),
  )
  if (parent.id !== launcher.id)
    decided(
      checkRequest(
        { ...input, run },
        parent,
        effectiveLauncher(parent.id, (id) => ctx.store.get(id)),
      ),
    )
  // The launcher is acted as; a parent it names is only where the lane nests (checked above as a launcher too).
  await ctx.checkActingAs(launcher, input.conversationKey, 'svc lane start')
  const project = await resolveProject(ctx, input.project, launcher, input.cwd)
  const defaults = roleConfig(project.entry, input.role) ?? {}
  const hosts = await readHosts(ctx)
  // A --reuse runs where the earlier lane's directory is (placeReuse, once the plan names that lane).
  const { host } = input.reuse
    ? {}
    : decided(
        placeLane({
          role: input.role,
          harness: input.harness ?? defaults.harness ?? 'claude',
          flag: input.host,
          roleHost: defaults.host,
          projectHost: project.entry.gauntlet?.host,
          hosts: Object.keys(hosts),
        }),
      )
  // Launch rule 5: a new worktree is cut from a fresh fetch. The fetch begins now, beside the steps that need no
  // fetched ref; a launch refused meanwhile leaves it to finish on its own.
  const fetched =
    isGitBacked(input.role) && !input.reuse ? ctx.io.git.fetchOrigin(project.checkout, ctx.io.clock.now()) : undefined
  fetched?.catch(() => {})
  const base = await baseOf(ctx, project.entry, project.checkout)

  // Who asks, read now, in the request (the queue may run the launch later).
  const replacer = input.replace ? await ctx.verifiedCaller() : undefined
  const rec = await starts.run(`${run}\0${key}\0${input.role}`, async () => {
    let { plan } = decided(planLaunch(input, run, key, await laneRows(ctx, run), defaults, base, ctx.io.clock.now()))
    if (plan.replace) {
      // Replacing stops the live lane: that is a stop, which belongs to its launcher chain and the person.
      await ctx.checkCommand(plan.replace.rec, 'svc lane start --replace', replacer)
      await stopConversation(ctx, plan.replace.rec, replaceStopMs(ctx))
      plan = decided(
        planLaunch(
          { ...input, replace: false },
          run,
          key,
          await laneRows(ctx, run),
          defaults,
          base,
          ctx.io.clock.now(),
        ),
      ).plan
    }
    const lane = (made: Made, dir: string) =>
      createLane(ctx, { plan, dir, brief, input, launcher: parent, project: project.key, made })
    if (plan.reuse) {
      const earlier = plan.reuse.rec
      const placed = decided(
        placeReuse({
          earlier: { id: earlier.id, dir: plan.dirName, host: earlier.lane.host },
          flag: input.host,
          harness: plan.harness,
          hosts: Object.keys(hosts),
        }),
      )
      if (placed.host)
        return lane(
          await reusedOnHost(ctx, { host: placed.host, entry: hostEntry(hosts, placed.host)!, rec: earlier }),
          earlier.cwd,
        )
      const dir = join(project.lanesRoot, plan.dirName)
      return inReusedDirectory(ctx, plan.reuse, dir, (made) => lane(made, dir))
    }
    if (host) return onHostDirectory(ctx, { host, entry: hostEntry(hosts, host)!, project, plan, fetched }, lane)
    const dir = join(project.lanesRoot, plan.dirName)
    return inNewDirectory(ctx, project, plan, dir, fetched, (made) => lane(made, dir))
  })
  // A conversation no process drives can never leave `starting`: waiting for it would only burn the 180 s.
  const view = input.noWait || rec.harness === 'none' ? ctx.view(rec) : await awaitStart(ctx, rec, START_WAIT_LIMIT_MS)
  if (view.activity === 'failed-to-start')
    throw new SvcError(
      'conflict',
      `lane ${run}/${key} ${input.role} i${rec.lane!.iteration} (conv ${rec.id}) failed to start: ` +
        `${view.evidence.detail}`,
    )
  return { lane: view, line: startLine({ ...rec.lane!, id: rec.id, name: rec.name }, rec.cwd) }
}

async function createLane(
  ctx: KernelContext,
  a: {
    plan: LanePlan
    dir: string
    brief: string
    input: PortInput<'laneStart'>
    launcher: ConversationRecord
    project: string
    made: Made
  },
): Promise<ConversationRecord> {
  const { plan, made } = a
  const judged = plan.judged
    ? { id: plan.judged.row.rec.id, key: plan.key, iteration: plan.judged.iteration, sha: made.at ?? plan.judged.sha }
    : undefined
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
    ...(made.host ? { host: made.host } : {}),
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
