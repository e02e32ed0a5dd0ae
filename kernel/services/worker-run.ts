import { isLive } from '../domain/activity.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import { issueSlug, parseIssueRef, type IssueRef } from '../domain/issue-ref.js'
import { buildWorkerContract } from '../domain/worker-contract.js'
import {
  checkIssueState,
  isWorkerOf,
  mayRunWorker,
  planWorker,
  workerConvName,
  type WorkerPlan,
  type WorkerRow,
} from '../domain/worker-rules.js'
import { dirname, join } from '../io/paths.js'
import type { IssueView, PortInput, PortOutputs } from '../port/port.js'
import { KeyedQueue } from '../queue/serial.js'
import { awaitStart } from './await-start.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'
import { hasDoneReport } from '../domain/lane.js'
import { createConversation, stopConversation } from './conversations.js'
import { issueShow } from './issues.js'
import { inNewDirectory, inReusedDirectory, type Made } from './lane-start-dir.js'
import { readBrief, replaceStopMs } from './lane-start.js'
import { baseOf, resolveProject } from './project.js'
import { START_WAIT_LIMIT_MS } from '../domain/limits.js'

/** `svc worker run`: a conversation that works on one issue in a worktree of its own and reports to whoever ran it.
 * The directory is made by the same step as a lane's (lane-start-dir.ts). */

const runs = new KeyedQueue()

/** Every earlier worker of the issue, as planWorker needs them. */
async function workerRows(ctx: KernelContext, issue: string, project: string): Promise<WorkerRow[]> {
  const now = ctx.io.clock.now()
  const recs = ctx.store.all().filter((r) => isWorkerOf(r, issue, project))
  return Promise.all(
    recs.map(async (r) => ({
      id: r.id,
      createdAt: r.createdAt,
      live: isLive(ctx.view(r, now).activity),
      doneReported: hasDoneReport(await ctx.store.reports(r.name)),
      worker: r.worker!,
    })),
  )
}

export async function workerRun(ctx: KernelContext, input: PortInput<'workerRun'>): Promise<PortOutputs['workerRun']> {
  const brief = readBrief(input)
  const launcher = await ctx.caller(input.conversation, 'svc worker run', 'run svc worker run inside a conversation')
  await ctx.checkActingAs(launcher, input.conversationKey, 'svc worker run')
  const may = decided(mayRunWorker(launcher.id, (id) => ctx.store.get(id)))
  const project = await resolveProject(ctx, input.project, launcher, input.cwd)
  const issue = await issueShow(ctx, { ref: input.issue, project: project.key, cwd: input.cwd })
  decided(checkIssueState(issue.ref, issue.state, Boolean(input.allowClosed)))
  const ref = (parseIssueRef(issue.ref) as { ok: true; value: IssueRef }).value
  const fetched = input.reuse ? undefined : ctx.io.git.fetchOrigin(project.checkout, ctx.io.clock.now())
  fetched?.catch(() => {})
  const base = await baseOf(ctx, project.entry, project.checkout)
  const slug = issueSlug(ref)

  // Who asks, read now, in the request (the queue may run the launch later).
  const replacer = input.replace ? await ctx.verifiedCaller() : undefined
  const rec = await runs.run(`${project.key}\0${issue.ref}`, async () => {
    let plan = decided(planWorker(issue.ref, slug, await workerRows(ctx, issue.ref, project.key), input))
    if (plan.replace) {
      const live = ctx.store.get(plan.replace.id)!
      await ctx.checkCommand(live, 'svc worker run --replace', replacer)
      await stopConversation(ctx, live, replaceStopMs(ctx))
      plan = decided(
        planWorker(issue.ref, slug, await workerRows(ctx, issue.ref, project.key), { ...input, replace: false }),
      )
    }
    const p = plan
    const dir = join(project.lanesRoot, p.dirName)
    const create = (made: Made) =>
      createWorker(ctx, {
        plan: p,
        ref,
        issue,
        dir,
        brief,
        input,
        starter: may.starter,
        launcher,
        project: project.key,
        made,
      })
    if (p.reuse) return inReusedDirectory(ctx, { rec: ctx.store.get(p.reuse.id)! }, dir, create)
    return inNewDirectory(
      ctx,
      project,
      { role: 'builder', branch: p.branch, startPoint: input.from ?? base },
      dir,
      fetched,
      create,
    )
  })
  const view = input.noWait || rec.harness === 'none' ? ctx.view(rec) : await awaitStart(ctx, rec, START_WAIT_LIMIT_MS)
  const n = rec.worker!.iteration
  if (view.activity === 'failed-to-start')
    throw new SvcError(
      'conflict',
      `worker ${issue.ref} i${n} (conv ${rec.id}) failed to start: ${view.evidence.detail}`,
    )
  return { worker: view, line: `Worker ${issue.ref} i${n}: conv ${rec.id} (${rec.name}) in ${rec.cwd}` }
}

/** The issue as it stood at the run, kept beside the brief: a later edit of the issue cannot change the contract
 * silently. */
function snapshot(ctx: KernelContext, issue: IssueView): string {
  const hash = ctx.io.ids.sha256(JSON.stringify([issue.title, issue.body]))
  return (
    JSON.stringify(
      { ref: issue.ref, title: issue.title, body: issue.body, url: issue.url, state: issue.state, sha256: hash },
      null,
      2,
    ) + '\n'
  )
}

function createWorker(
  ctx: KernelContext,
  a: {
    plan: WorkerPlan
    ref: IssueRef
    issue: IssueView
    dir: string
    brief: string
    input: PortInput<'workerRun'>
    starter: ConversationRecord
    launcher: ConversationRecord
    project: string
    made: Made
  },
): Promise<ConversationRecord> {
  const { plan, made, issue } = a
  const contract = buildWorkerContract({
    issue: issue.ref,
    title: issue.title,
    url: issue.url,
    iteration: plan.iteration,
    cwd: a.dir,
    branch: made.branch,
    brief: a.brief,
  })
  return createConversation(ctx, {
    fallbackName: (_id, attempt) => workerConvName(a.ref, plan.iteration, attempt),
    // A worker nests under the conversation that ran it; it reports to the effective launcher.
    parent: a.launcher.id,
    worker: {
      issue: issue.ref,
      starter: a.starter.id,
      dir: plan.dirName,
      root: dirname(a.dir),
      iteration: plan.iteration,
      ...(made.repo ? { repo: made.repo } : {}),
      ...(made.branch ? { branch: made.branch } : {}),
      ...(made.made ? { made: made.made } : {}),
      ...(a.input.post ? { post: true } : {}),
      ...(issue.url ? { url: issue.url } : {}),
    },
    project: a.project,
    harness: a.input.harness ?? 'claude',
    model: a.input.model,
    effort: a.input.effort,
    title: a.input.title ?? issue.title,
    cwd: a.dir,
    firstMessage: contract,
    files: { 'worker-brief.md': a.brief, 'issue.json': snapshot(ctx, issue) },
    briefFile: 'worker-brief.md',
  })
}
