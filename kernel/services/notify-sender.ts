import { oneLine } from '../domain/errors.js'
import { notificationText, type NotificationBody } from '../domain/notify-events.js'
import { sinkTakes, type NotifyConfig, type NotifySink } from '../domain/notify-config.js'
import { afterAttempt, type Attempt, type RetrySchedule } from '../domain/retry.js'
import { DeliveryQueue } from '../queue/delivery-queue.js'
import type { Log } from '../io/log.js'
import type { Adapters } from '../io/adapters.js'

interface NotifyTimings {
  /** How long a webhook may take to answer one POST. */
  webhookTimeoutMs: number
  webhookRetry: RetrySchedule
  /** How long the desktop command may run before it is killed. */
  commandLimitMs: number
  /** Notifications waiting per sink before the oldest is dropped. */
  bound: number
}

export const notifyTimings = (timing: Adapters['timing']): NotifyTimings => ({
  webhookTimeoutMs: timing('NOTIFY_TIMEOUT', 5_000),
  webhookRetry: { tries: 3, firstDelayMs: timing('NOTIFY_RETRY', 1_000), factor: 2 },
  commandLimitMs: timing('NOTIFY_COMMAND_LIMIT', 10_000),
  bound: 100,
})

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

interface Item {
  body: NotificationBody
  config: NotifyConfig
}

/** Hands notifications to the webhook and the desktop command, each through its own bounded queue, so a slow
 * receiver holds up neither the kernel nor the other sink. Every failure is one line in kernel.log. */
export class NotifySender {
  private readonly queues: Record<NotifySink, DeliveryQueue<Item>>

  constructor(
    private readonly log: Log,
    notify: Pick<Adapters['notify'], 'postJson' | 'runCommand'>,
    timings: NotifyTimings,
  ) {
    const queue = (sink: NotifySink, attempt: (item: Item) => Promise<Attempt>, schedule: RetrySchedule) =>
      new DeliveryQueue<Item>(
        timings.bound,
        (item) => this.deliver(sink, item, () => attempt(item), schedule),
        (n) =>
          log(
            'warn',
            `notify ${sink}: ${timings.bound} notifications waiting; dropped the oldest (${n} dropped so far)`,
          ),
        (e) => log('error', `notify ${sink}: ${oneLine(String((e as Error)?.message ?? e))}`),
      )
    this.queues = {
      webhook: queue(
        'webhook',
        ({ body, config }) =>
          notify.postJson(config.webhook!.url, body, {
            headers: config.webhook!.headers,
            timeoutMs: timings.webhookTimeoutMs,
          }),
        timings.webhookRetry,
      ),
      command: queue(
        'command',
        ({ body, config }) =>
          notify.runCommand(config.command!, {
            input: JSON.stringify(body) + '\n',
            env: commandEnv(body),
            timeoutMs: timings.commandLimitMs,
          }),
        { tries: 1, firstDelayMs: 0, factor: 1 },
      ),
    }
  }

  /** Queue a notification for every sink that takes its event; returns at once. */
  send(config: NotifyConfig, body: NotificationBody): void {
    for (const sink of ['webhook', 'command'] as const)
      if (sinkTakes(config, sink, body.event)) this.queues[sink].push({ body, config })
  }

  private async deliver(
    sink: NotifySink,
    item: Item,
    attempt: () => Promise<Attempt>,
    schedule: RetrySchedule,
  ): Promise<void> {
    const what = `${item.body.event} of conv-${item.body.conv.name}`
    for (let n = 1; ; n++) {
      const outcome = await attempt()
      const next = afterAttempt(schedule, n, outcome)
      if (next.do === 'done') return
      if (next.do === 'give-up')
        return this.log('error', `notify ${sink}: ${what} not delivered: ${oneLine(next.why, 300)}`)
      this.log(
        'warn',
        `notify ${sink}: ${what}: try ${n} of ${schedule.tries} failed: ` +
          `${oneLine(outcome.ok ? '' : outcome.error, 300)}; next in ${next.inMs} ms`,
      )
      await sleep(next.inMs)
    }
  }
}

/** The short title and text of a notification, for a desktop command that shows one. */
function commandEnv(body: NotificationBody): Record<string, string> {
  const { title, text } = notificationText(body)
  return { SERVICE_NOTIFY_EVENT: body.event, SERVICE_NOTIFY_TITLE: title, SERVICE_NOTIFY_BODY: text }
}
