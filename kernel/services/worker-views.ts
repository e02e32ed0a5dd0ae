import { turnEndedWithoutReport } from '../domain/activity.js'
import { activityOf } from './conv-view.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { inIdOrder } from '../domain/newest.js'
import { formatCursor } from '../domain/wait.js'
import { formatIssueRef } from '../domain/issue-ref.js'
import { isWorkerOf, workerOf } from '../domain/worker-rules.js'
import { oneWaitForm } from '../domain/wait.js'
import type { PortInput, PortOutputs, WaitResult, WorkerView } from '../port/port.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'
import { stopConversation } from './conversations.js'
import type { GitFactsCache } from './git-facts.js'
import { resolveIssueRef } from './issues.js'
import { reapDirectory } from './lane-reap.js'
import { oneMember, setCursor, waitOn } from './lane-wait.js'

/** `svc worker list|show|stop|reap|wait`: the lane verbs' code, over the workers. */

const workersOf = (ctx: KernelContext) => ctx.store.all().filter((r) => r.worker)

/** A worker named by id, name or conv-<name>: anything else is refused. */
function resolveWorker(ctx: KernelContext, ref: string): ConversationRecord {
  return decided(workerOf(ctx.resolve(ref))).rec
}

/** The workers of an issue: `--issue` as `svc issue show` reads it (a local one is the project's). */
async function ofIssue(
  ctx: KernelContext,
  input: { issue?: string; project?: string; cwd?: string },
): Promise<((r: ConversationRecord) => boolean) | undefined> {
  if (input.issue === undefined) return undefined
  const { ref, project } = await resolveIssueRef(ctx, { ref: input.issue, project: input.project, cwd: input.cwd })
  const text = formatIssueRef(ref)
  return (r) => isWorkerOf(r, text, project?.key)
}

export async function workerViews(ctx: KernelContext, pick: (r: ConversationRecord) => boolean): Promise<WorkerView[]> {
  const now = ctx.io.clock.now()
  const recs = workersOf(ctx).filter(pick).sort(inIdOrder)
  return Promise.all(
    recs.map(async (rec) => {
      const w = rec.worker!
      const v = ctx.view(rec, now)
      const reports = await ctx.store.reports(rec.name)
      const newest = reports.at(-1)
      return {
        id: rec.id,
        name: rec.name,
        parent: rec.parent,
        issue: w.issue,
        ...(w.url ? { url: w.url } : {}),
        starter: w.starter,
        iteration: w.iteration,
        cwd: rec.cwd,
        ...(w.branch ? { branch: w.branch } : {}),
        post: Boolean(w.post),
        harness: rec.harness,
        model: v.model,
        createdAt: rec.createdAt,
        archived: v.archived,
        activity: v.activity,
        ...(v.reason ? { reason: v.reason } : {}),
        evidence: v.evidence,
        ...(turnEndedWithoutReport(activityOf(v), v.turn, reports) ? { noReport: true as const } : {}),
        ...(newest ? { report: { seq: newest.seq, status: newest.status, at: newest.at } } : {}),
      }
    }),
  )
}

export async function workerList(ctx: KernelContext, input: PortInput<'workerList'>): Promise<WorkerView[]> {
  const issue = await ofIssue(ctx, input)
  const parent = input.parent === undefined ? undefined : ctx.resolve(input.parent).id
  return workerViews(
    ctx,
    (r) => (!issue || issue(r)) && (parent === undefined || r.parent === parent || r.worker!.starter === parent),
  )
}

export const workerGet = async (ctx: KernelContext, ref: string): Promise<WorkerView> => {
  const rec = resolveWorker(ctx, ref)
  return (await workerViews(ctx, (r) => r.id === rec.id))[0]
}

export async function workerStop(ctx: KernelContext, input: PortInput<'workerStop'>): Promise<WorkerView> {
  const rec = resolveWorker(ctx, input.worker)
  await ctx.checkCommand(rec, 'svc worker stop')
  await stopConversation(ctx, rec)
  return workerGet(ctx, rec.id)
}

/** `svc worker reap`: the lane reap itself, on the worker's directory. */
export async function workerReap(
  ctx: KernelContext,
  cache: GitFactsCache,
  input: PortInput<'workerReap'>,
): Promise<PortOutputs['workerReap']> {
  const rec = resolveWorker(ctx, input.worker)
  await ctx.checkCommand(rec, 'svc worker reap')
  const { view, ...done } = await reapDirectory(ctx, cache, rec, input, () => workerGet(ctx, rec.id))
  return { worker: view, ...done }
}

/** `svc worker wait`: the lane wait, over one worker, the workers of an issue, or those a conversation ran. */
export async function workerWait(ctx: KernelContext, input: PortInput<'workerWait'>): Promise<WaitResult> {
  decided(oneWaitForm([input.worker, input.issue, input.parent], 'worker'))
  if (input.worker !== undefined) {
    const rec = resolveWorker(ctx, input.worker)
    return waitOn(
      ctx,
      oneMember(rec, input.after, 'worker', `worker ${rec.worker!.issue} i${rec.worker!.iteration}`),
      input,
    )
  }
  const after = setCursor(input.after)
  const issue = await ofIssue(ctx, input)
  if (issue)
    return waitOn(
      ctx,
      {
        members: () => workersOf(ctx).filter(issue),
        after,
        afterSeq: 0,
        what: `issue ${input.issue}`,
        unit: 'worker',
        format: formatCursor,
      },
      input,
    )
  const parent = ctx.resolve(input.parent!)
  const ran = (r: ConversationRecord) => r.parent === parent.id || r.worker!.starter === parent.id
  return waitOn(
    ctx,
    {
      members: () => workersOf(ctx).filter(ran),
      after,
      afterSeq: 0,
      what: `the workers of conv ${parent.id}`,
      unit: 'worker',
      format: formatCursor,
    },
    input,
  )
}
