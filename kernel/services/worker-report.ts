import type { ConversationRecord } from '../domain/conversation.js'
import type { Report } from '../domain/report.js'
import { parseIssueRef } from '../domain/issue-ref.js'
import { alreadyPosted, reportComment, reportMarker, starterMessage } from '../domain/worker-rules.js'
import { convFiles } from '../io/home.js'
import type { PortInput, PortOutputs } from '../port/port.js'
import type { KernelContext } from './context.js'
import { tell } from './conversations.js'
import { issueComments } from './issues.js'
import { fileReport } from './lane-report.js'

/** `svc worker report`: filed as a builder's report is, then its starter is told. */
export async function workerReport(
  ctx: KernelContext,
  input: PortInput<'workerReport'>,
): Promise<PortOutputs['workerReport']> {
  const { report, rec, view } = await fileReport(ctx, input, 'worker')
  await deliverReport(ctx, rec, report)
  return { report, worker: view }
}

/** Where it is recorded that the starter was told of a report (or why it could not be). */
const toldPath = (ctx: KernelContext, name: string, seq: number) => `${convFiles(ctx.home, name).dir}/told-${seq}.json`

/** After a report is stored: its starter is told once, and with `--post` it is posted to the issue once. Run again
 * at the kernel's start for every report, so a restart between the store and either step loses nothing (each step
 * records that it was done, and skips when it was). */
async function deliverReport(ctx: KernelContext, rec: ConversationRecord, report: Report): Promise<void> {
  await tellStarter(ctx, rec, report).catch((e: Error) =>
    ctx.log('warn', `worker ${rec.name}: report #${report.seq}: telling the starter failed: ${e.message}`),
  )
  if (rec.worker!.post)
    await postReport(ctx, rec, report).catch((e: Error) =>
      ctx.log(
        'warn',
        `worker ${rec.name}: report #${report.seq}: posting to ${rec.worker!.issue} failed: ${e.message}`,
      ),
    )
}

/** Where it is recorded that a report was posted to its issue. */
const postedPath = (ctx: KernelContext, name: string, seq: number) =>
  `${convFiles(ctx.home, name).dir}/posted-${seq}.json`

/** Post the report to the issue as one comment ending with its marker, unless a comment of the issue already ends
 * with it (a post a crash kept from being recorded); then record the posting. The service never closes or
 * relabels an issue. */
async function postReport(ctx: KernelContext, rec: ConversationRecord, report: Report): Promise<void> {
  const path = postedPath(ctx, rec.name, report.seq)
  if (ctx.io.files.exists(path)) return
  const w = rec.worker!
  const parsed = parseIssueRef(w.issue)
  if (!parsed.ok || parsed.value.tracker === 'origin') throw new Error(`the worker's issue ${w.issue} is no reference`)
  const comments = issueComments(ctx, parsed.value, rec.project)
  const marker = reportMarker(rec.name, report.seq)
  const posted = alreadyPosted(
    marker,
    (await comments.list()).map((c) => c.body),
  )
    ? { already: true }
    : {
        url: (
          await comments.post(
            reportComment({ ref: w.issue, conv: rec.name, seq: report.seq, status: report.status, body: report.body }),
          )
        ).url,
      }
  ctx.io.fault.point('worker-posted')
  await ctx.io.writes.createFileOnce(path, JSON.stringify({ at: ctx.io.clock.now(), ...posted }) + '\n')
}

async function tellStarter(ctx: KernelContext, rec: ConversationRecord, report: Report): Promise<void> {
  const path = toldPath(ctx, rec.name, report.seq)
  if (ctx.io.files.exists(path)) return
  const w = rec.worker!
  const starter = ctx.store.get(w.starter)
  const text = starterMessage({ id: rec.id, name: rec.name, issue: w.issue, iteration: w.iteration }, report)
  let outcome: { told: boolean; why?: string }
  if (!starter || starter.harness === 'none') outcome = { told: false, why: 'the starter is driven by no harness' }
  else if (inInbox(ctx, starter.name, text)) outcome = { told: true }
  else {
    try {
      await tell(ctx, { conv: starter.id, text })
      outcome = { told: true }
    } catch (e) {
      outcome = { told: false, why: (e as Error).message }
    }
  }
  await ctx.io.writes.createFileOnce(
    path,
    JSON.stringify({ at: ctx.io.clock.now(), starter: w.starter, ...outcome }) + '\n',
  )
}

/** A message already in the starter's inbox (told before a crash cut the recording short) is not sent again. */
function inInbox(ctx: KernelContext, name: string, text: string): boolean {
  const inbox = convFiles(ctx.home, name).inbox
  if (!ctx.io.files.exists(inbox)) return false
  return ctx.io.files
    .readTextSync(inbox)
    .split('\n')
    .some((l) => {
      try {
        return (JSON.parse(l) as { text?: string }).text === text
      } catch {
        return false
      }
    })
}

/** At the kernel's start: every worker report not yet told or posted (the kernel stopped in between). */
export async function deliverPending(ctx: KernelContext): Promise<void> {
  for (const rec of ctx.store.all()) {
    if (!rec.worker || rec.archived) continue
    for (const report of await ctx.store.reports(rec.name)) await deliverReport(ctx, rec, report)
  }
}
