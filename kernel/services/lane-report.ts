import { SvcError } from '../domain/errors.js'
import { isGitBacked } from '../domain/keys.js'
import { checkReport, reportingLane, reportingWorker, type TreeFacts } from '../domain/report-rules.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { inChain } from '../domain/lane.js'
import type { Report } from '../domain/report.js'
import { workDirOf } from '../domain/worker-rules.js'
import { convFiles } from '../io/home.js'
import type { ConvView, PortInput, PortOutputs } from '../port/port.js'
import { KeyedQueue } from '../queue/serial.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'

const reports = new KeyedQueue()
/** Who may file through a verb: `svc lane report` from a lane, `svc worker report` from a worker. */
type Reporter = 'lane' | 'worker'

/** The lane or worker a report comes from: $SERVICE_CONVERSATION must name one (report rule 6). */
async function caller(ctx: KernelContext, ref: string | undefined, kind: Reporter): Promise<ConversationRecord> {
  let found: ConversationRecord | undefined
  try {
    // A lane that lost $SERVICE_CONVERSATION still reports as itself: its process tree says who it is.
    found = ref ? ctx.resolve(ref) : await ctx.callerTree()
  } catch {
    found = undefined
  }
  return decided(kind === 'lane' ? reportingLane(found) : reportingWorker(found)).rec
}

/** The lanes whose reports bind this one's: for a builder, every lane of its iteration (a reuse respawn shares the
 * branch); for a worker, every worker of its issue's iteration, for the same reason. */
function peersOf(ctx: KernelContext, rec: ConversationRecord): ConversationRecord[] {
  const l = rec.lane
  if (l?.role === 'builder')
    return ctx.store
      .all()
      .filter(
        (r) => r.lane && inChain(r.lane, l.run, l.key) && r.lane.role === 'builder' && r.lane.iteration === l.iteration,
      )
  const w = rec.worker
  if (w)
    return ctx.store
      .all()
      .filter(
        (r) =>
          r.worker && r.project === rec.project && r.worker.issue === w.issue && r.worker.iteration === w.iteration,
      )
  return [rec]
}

/** The lock a report is filed under: one per builder or worker iteration, else one per conversation. */
function lockOf(rec: ConversationRecord): string {
  const l = rec.lane
  if (l?.role === 'builder') return `${l.run}\0${l.key}\0builder\0${l.iteration}`
  if (rec.worker) return `worker\0${rec.project}\0${rec.worker.issue}\0${rec.worker.iteration}`
  return rec.name
}

/** `svc lane report` and `svc worker report`: rules 1-6 of SPEC.md 4.1, then the report recorded under conv-<name>.
 * A worker's gates are a builder's. */
export async function fileReport(
  ctx: KernelContext,
  input: PortInput<'laneReport'>,
  kind: Reporter,
): Promise<{ report: Report; rec: ConversationRecord; view: ConvView }> {
  const rec = await caller(ctx, input.conversation, kind)
  await ctx.checkActingAs(rec, input.conversationKey, `svc ${kind} report`)
  return fileReportOf(ctx, rec, input, () =>
    ctx.io.git.statusFacts(rec.cwd).catch((e: Error) => {
      throw new SvcError('conflict', `cannot read the git state of ${rec.cwd}: ${e.message}`)
    }),
  )
}

/** The report of a lane or worker whose caller is known: its rules, then the store. `treeOf` gives the git state of
 * its worktree (read here at home, or as a host sent it with the report). */
export async function fileReportOf(
  ctx: KernelContext,
  rec: ConversationRecord,
  input: Omit<PortInput<'laneReport'>, 'conversation' | 'conversationKey'>,
  treeOf: () => Promise<TreeFacts>,
  extra: Pick<Report, 'hostReport'> = {},
): Promise<{ report: Report; rec: ConversationRecord; view: ConvView }> {
  const dir = workDirOf(rec)!
  const l = rec.lane
  return reports.run(lockOf(rec), async () => {
    const tree = isGitBacked(dir.role) ? await treeOf() : undefined
    const status = input.status ?? 'done'
    const judged = decided(
      checkReport(
        l ?? { role: 'worker', key: rec.worker!.issue, iteration: dir.iteration, branch: dir.branch },
        {
          status,
          body: input.body,
          verdict: input.verdict,
          defects: input.defects,
          verdictText: input.verdictFile?.text,
          allowUnpushed: input.allowUnpushed,
        },
        (await Promise.all(peersOf(ctx, rec).map((p) => ctx.store.reports(p.name)))).flat(),
        tree,
        input.verdictFile?.path,
      ),
    )
    let verdictFile: string | undefined
    if (input.verdictFile) {
      verdictFile = `${convFiles(ctx.home, rec.name).dir}/verdict.json`
      if (!(await ctx.io.writes.createFileOnce(verdictFile, input.verdictFile.text)))
        throw new SvcError('conflict', `refused: ${verdictFile} already exists`)
    }
    // A report that could not be written held back the reports of other lanes filed meanwhile (io/store): their
    // events came while they were hidden, so the waits look again.
    const report = await ctx.store
      .appendReport(rec.name, {
        status,
        body: input.body,
        ...(tree?.head ? { head: tree.head } : {}),
        ...(tree?.branch ? { branch: tree.branch } : {}),
        ...(judged.verdict ? { verdict: judged.verdict, defects: judged.defects } : {}),
        ...(verdictFile ? { verdictFile } : {}),
        ...(l?.for?.sha && judged.verdict ? { judged: l.for.sha } : {}),
        ...extra,
      })
      .catch((e: unknown) => {
        ctx.emit({ name: rec.name, what: 'state' })
        throw e
      })
    ctx.emit({ name: rec.name, what: 'report' })
    return { report, rec, view: ctx.view(rec) }
  })
}

export async function laneReport(
  ctx: KernelContext,
  input: PortInput<'laneReport'>,
): Promise<PortOutputs['laneReport']> {
  const { report, view } = await fileReport(ctx, input, 'lane')
  return { report, lane: view }
}
