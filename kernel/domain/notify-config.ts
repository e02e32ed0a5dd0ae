import * as v from 'valibot'
import { issueText, type Checked } from './shape.js'

/** What can raise a notification: a conversation turning needs-you, a lane filing a report. */
const NOTIFY_EVENTS = ['needs-you', 'report'] as const
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number]

// Refinements are checks with a message of their own: issueText shows it where a bare minLength would say '>=1'.
const Events = v.pipe(
  v.array(v.picklist(NOTIFY_EVENTS)),
  v.check((a) => a.length > 0, 'at least one of needs-you, report'),
)

const Url = v.pipe(
  v.string(),
  v.check((s) => URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol), 'an http:// or https:// URL'),
)

/** Header names as HTTP allows them (tokens); values on one line, so no header can smuggle in another. */
const Headers = v.record(
  v.pipe(
    v.string(),
    v.check((s) => /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(s), "a header name of letters, digits and !#$%&'*+.^_`|~-"),
  ),
  v.pipe(
    v.string(),
    v.check((s) => !/[\r\n\0]/.test(s), 'a header value on one line'),
  ),
)

const Webhook = v.strictObject({ url: Url, headers: v.optional(Headers), events: v.optional(Events) })

/** notify.yaml: where notifications go (a webhook, a desktop command, or both) and which events raise them. */
const NotifyConfigSchema = v.pipe(
  v.strictObject({
    webhook: v.optional(Webhook),
    command: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            v.string(),
            v.check((a) => a.length > 0, 'a non-empty argument'),
          ),
        ),
        v.check((a) => a.length > 0, 'a program and its arguments'),
      ),
    ),
    events: v.optional(Events),
  }),
  v.check((c) => Boolean(c.webhook || c.command), 'a webhook or a command (or both)'),
)
export type NotifyConfig = v.InferOutput<typeof NotifyConfigSchema>

/** The notify block of a parsed document: none (an empty file), or the block, or what is wrong on one line. */
export function checkNotifyConfig(doc: unknown): Checked<NotifyConfig | undefined> {
  if (doc === null || doc === undefined) return { ok: true, value: undefined }
  const r = v.safeParse(NotifyConfigSchema, doc)
  return r.success ? { ok: true, value: r.output } : { ok: false, problem: issueText(r.issues) }
}

export type NotifySink = 'webhook' | 'command'

/** Whether a sink takes an event: the webhook's own list, else the block's, else every event. */
export function sinkTakes(config: NotifyConfig, sink: NotifySink, event: NotifyEvent): boolean {
  if (!config[sink]) return false
  const events = (sink === 'webhook' ? config.webhook?.events : undefined) ?? config.events ?? NOTIFY_EVENTS
  return events.includes(event)
}

/** What `svc doctor` says of a valid block: where notifications go (the webhook's origin only: its path and
 * headers may hold a secret) and which events each takes. */
export function describeNotifyConfig(config: NotifyConfig): string {
  const takes = (sink: NotifySink) => NOTIFY_EVENTS.filter((e) => sinkTakes(config, sink, e)).join(', ')
  const to = [
    config.webhook && `webhook to ${new URL(config.webhook.url).origin} (${takes('webhook')})`,
    config.command && `command ${config.command[0]} (${takes('command')})`,
  ]
  return to.filter(Boolean).join('; ')
}
