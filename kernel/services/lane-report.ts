import { SvcError } from '../domain/errors.js'
import { isGitBacked } from '../domain/lane-paths.js'
import { checkReport, reportingLane } from '../domain/report-rules.js'
import type { ConversationRecord, LaneRecord } from '../domain/conversation.js'
import { convFiles } from '../home.js'
import { createFileOnce } from '../io/atomic-file.js'
import * as git from '../io/git.js'
import type { PortInput, PortOutputs } from '../port.js'
import { KeyedQueue } from '../serial.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'

const reports = new KeyedQueue()

/** The lane a report comes from: $SERVICE_CONVERSATION must name a lane (report rule 6). */
function callerLane(ctx: KernelContext, ref: string | undefined): LaneRecord {
  let caller: ConversationRecord | undefined
  try {
    caller = ref ? ctx.resolve(ref) : undefined
  } catch {
    caller = undefined
  }
  return decided(reportingLane(caller)).rec
}

/** Reports that bind this one: for a builder, every lane of its iteration (a reuse respawn shares the branch). */
async function earlierReports(ctx: KernelContext, rec: LaneRecord) {
  const l = rec.lane
  const peers = l.role === 'builder'
    ? ctx.store.all().filter((r) => r.lane && r.lane.run === l.run && r.lane.key === l.key && r.lane.role === 'builder' && r.lane.iteration === l.iteration)
    : [rec]
  return (await Promise.all(peers.map((p) => ctx.store.reports(p.name)))).flat()
}

/** `svc lane report`: rules 1-6 of SPEC.md 4.1, then the report recorded under conv-<name>. */
export async function laneReport(ctx: KernelContext, input: PortInput<'laneReport'>): Promise<PortOutputs['laneReport']> {
  const rec = callerLane(ctx, input.conversation)
  ctx.checkActingAs(rec, input.conversationKey, 'svc lane report')
  const l = rec.lane
  const lock = l.role === 'builder' ? `${l.run}\0${l.key}\0builder\0${l.iteration}` : rec.name
  return reports.run(lock, async () => {
    const tree = isGitBacked(l.role) ? await git.statusFacts(rec.cwd).catch((e: Error) => {
      throw new SvcError('conflict', `cannot read the git state of ${rec.cwd}: ${e.message}`)
    }) : undefined
    const status = input.status ?? 'done'
    const judged = decided(checkReport(
      l,
      { status, body: input.body, verdict: input.verdict, defects: input.defects, verdictText: input.verdictFile?.text, allowUnpushed: input.allowUnpushed },
      await earlierReports(ctx, rec),
      tree,
      input.verdictFile?.path,
    ))
    let verdictFile: string | undefined
    if (input.verdictFile) {
      verdictFile = `${convFiles(ctx.home, rec.name).dir}/verdict.json`
      if (!(await createFileOnce(verdictFile, input.verdictFile.text))) throw new SvcError('conflict', `refused: ${verdictFile} already exists`)
    }
    const report = await ctx.store.appendReport(rec.name, {
      status,
      body: input.body,
      ...(tree?.head ? { head: tree.head } : {}),
      ...(tree?.branch ? { branch: tree.branch } : {}),
      ...(judged.verdict ? { verdict: judged.verdict, defects: judged.defects } : {}),
      ...(verdictFile ? { verdictFile } : {}),
      ...(l.for?.sha && judged.verdict ? { judged: l.for.sha } : {}),
    })
    ctx.emit({ name: rec.name, what: 'report' })
    return { report, lane: ctx.view(rec) }
  })
}
