import type { ActivityView } from '../domain/activity.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { oneLine } from '../domain/errors.js'
import type { NotifyConfig } from '../domain/notify-config.js'
import { needsYouBody, newReports, reportBody, turnedNeedsYou, type ConvFacts } from '../domain/notify-events.js'
import type { Adapters } from '../io/adapters.js'
import { KeyedQueue } from '../queue/serial.js'
import type { KernelContext, KernelEvent } from './context.js'
import { activityOf } from './conv-view.js'
import { NotifySender, notifyTimings } from './notify-sender.js'

const convFacts = (rec: ConversationRecord): ConvFacts => ({
  id: rec.id,
  name: rec.name,
  title: rec.title,
  lane: rec.lane,
})

/** Turns the kernel's change events into notifications: a conversation turning needs-you, a lane's report. What
 * was last seen of each conversation is kept, so a re-read (the watcher echoing the kernel's own write) raises
 * nothing. A bad notify.yaml turns notifications off, logged once, and touches nothing else. */
export class Notifier {
  private readonly file: ReturnType<Adapters['notify']['configFile']>
  /** When the current block was first found valid: what happened before it is no news. */
  private since?: number
  private loggedProblem?: string
  private readonly seen = new Map<string, ActivityView>()
  private readonly lastSeq = new Map<string, number>()
  private readonly serial = new KeyedQueue()

  private readonly sender: NotifySender

  constructor(
    private readonly ctx: KernelContext,
    path: string,
  ) {
    this.file = ctx.io.notify.configFile(path)
    this.sender = new NotifySender(ctx.log, ctx.io.notify, notifyTimings(ctx.io.timing))
  }

  /** Follow the kernel's changes; the block is read now, so a bad one is in kernel.log from the start. */
  start(): void {
    this.ctx.events.on('change', (e: KernelEvent) => {
      if (e.what === 'transcript' || e.what === 'git') return
      const report = e.what === 'report'
      // While notifications are on, the activity as this change left it: by the time the change's turn comes, a
      // conversation may have left a needs-you already (a lane that asks, then exits), and that was a transition.
      const then = report || this.since === undefined ? undefined : this.activityNow(e.name)
      this.serial
        .run(e.name, () => this.handle(e.name, report, then))
        .catch((err: Error) => this.ctx.log('error', `notify: conv-${e.name}: ${oneLine(err.message, 300)}`))
    })
    void this.config()
  }

  private async config(): Promise<NotifyConfig | undefined> {
    const s = await this.file.read()
    if (s.problem && s.problem !== this.loggedProblem)
      this.ctx.log('error', `notify: ${oneLine(s.problem, 500)}; notifications are off until it is corrected`)
    this.loggedProblem = s.problem
    if (!s.config) {
      this.since = undefined
      this.seen.clear()
      this.lastSeq.clear()
      return undefined
    }
    this.since ??= this.ctx.io.clock.now()
    return s.config
  }

  private activityNow(name: string): ActivityView | undefined {
    try {
      const rec = this.ctx.store.getByName(name)
      return rec && activityOf(this.ctx.view(rec))
    } catch {
      return undefined // read again in its turn
    }
  }

  private async handle(name: string, report: boolean, then?: ActivityView): Promise<void> {
    const config = await this.config()
    const rec = this.ctx.store.getByName(name)
    if (!config || !rec) return
    const since = this.since!
    if (report) {
      const reports = await this.ctx.store.reports(name)
      const fresh = newReports(reports, this.lastSeq.get(name), since)
      if (reports.length) this.lastSeq.set(name, reports[reports.length - 1].seq)
      for (const r of fresh) this.sender.send(config, reportBody(convFacts(rec), r))
      return
    }
    const now = then ?? activityOf(this.ctx.view(rec))
    if (turnedNeedsYou(this.seen.get(name), now, since)) this.sender.send(config, needsYouBody(convFacts(rec), now))
    // A stopped conversation is forgotten: should it ever run again, its next needs-you is news by its time.
    if (now.value === 'stopped') this.seen.delete(name)
    else this.seen.set(name, now)
  }
}
