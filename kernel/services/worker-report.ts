import { existsSync, readFileSync } from 'node:fs'
import type { ConversationRecord } from '../domain/conversation.js'
import type { Report } from '../domain/report.js'
import { starterMessage } from '../domain/worker-rules.js'
import { convFiles } from '../home.js'
import { createFileOnce } from '../io/atomic-file.js'
import type { PortInput, PortOutputs } from '../port.js'
import type { KernelContext } from './context.js'
import { tell } from './conversations.js'
import { fileReport } from './lane-report.js'

/** `svc worker report`: filed as a builder's report is, then its starter is told. */
export async function workerReport(ctx: KernelContext, input: PortInput<'workerReport'>): Promise<PortOutputs['workerReport']> {
  const { report, rec, view } = await fileReport(ctx, input, 'worker')
  await deliverReport(ctx, rec, report)
  return { report, worker: view }
}

/** Where it is recorded that the starter was told of a report (or why it could not be). */
const toldPath = (ctx: KernelContext, name: string, seq: number) => `${convFiles(ctx.home, name).dir}/told-${seq}.json`

/** After a report is stored: its starter is told once. Run again at the kernel's start for every report not yet
 * recorded as told, so a restart between the store and the telling loses nothing. */
export async function deliverReport(ctx: KernelContext, rec: ConversationRecord, report: Report): Promise<void> {
  await tellStarter(ctx, rec, report).catch((e: Error) => ctx.log('warn', `worker ${rec.name}: report #${report.seq}: telling the starter failed: ${e.message}`))
}

async function tellStarter(ctx: KernelContext, rec: ConversationRecord, report: Report): Promise<void> {
  const path = toldPath(ctx, rec.name, report.seq)
  if (existsSync(path)) return
  const w = rec.worker!
  const starter = ctx.store.get(w.starter)
  const text = starterMessage({ id: rec.id, name: rec.name, issue: w.issue, iteration: w.iteration }, report)
  let outcome: { told: boolean; why?: string }
  if (!starter || starter.harness === 'none') outcome = { told: false, why: 'the starter is driven by no harness' }
  else if (inInbox(ctx, starter.name, text)) outcome = { told: true }
  else {
    try {
      await tell(ctx, { conv: starter.id, text }, async () => false)
      outcome = { told: true }
    } catch (e) {
      outcome = { told: false, why: (e as Error).message }
    }
  }
  await createFileOnce(path, JSON.stringify({ at: Date.now(), starter: w.starter, ...outcome }) + '\n')
}

/** A message already in the starter's inbox (told before a crash cut the recording short) is not sent again. */
function inInbox(ctx: KernelContext, name: string, text: string): boolean {
  const inbox = convFiles(ctx.home, name).inbox
  if (!existsSync(inbox)) return false
  return readFileSync(inbox, 'utf8').split('\n').some((l) => {
    try {
      return (JSON.parse(l) as { text?: string }).text === text
    } catch {
      return false
    }
  })
}

/** At the kernel's start: every worker report whose starter was not yet told (the kernel stopped in between). */
export async function deliverPending(ctx: KernelContext): Promise<void> {
  for (const rec of ctx.store.all()) {
    if (!rec.worker || rec.archived) continue
    for (const report of await ctx.store.reports(rec.name)) if (!existsSync(toldPath(ctx, rec.name, report.seq))) await deliverReport(ctx, rec, report)
  }
}
