import { hasEnded, takesMessages, type Activity } from './activity.js'
import type { ConversationRecord } from './conversation.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'
import type { Report } from './report.js'

/** The facts the rule of who can take a message decides on. */
export interface TellTarget {
  id: string
  name: string
  harness: string
  activity: Activity
  lane?: ConversationRecord['lane']
}

/** SPEC.md 4.2: whether a conversation can take a message now; the one rule behind `svc tell`'s refusals and the
 * deck's composer, which is disabled with this very reason. `reports` are the conversation's own. */
export function tellRefusal(t: TellTarget, reports: Pick<Report, 'status'>[], force = false): Decision {
  const who = `conv ${t.id} (${t.name})`
  if (t.harness === 'none') return refuse('conflict', `${who} is driven by no harness; nothing would read the message`)
  if (hasEnded(t.activity)) return refuse('conflict', `${who} is ${t.activity}; the message would not reach it`)
  return force ? ALLOWED : takesMessages(t, reports)
}

/** SPEC.md 4.2: a message has text. */
export const tellHasText = (text: string): Decision =>
  text.length === 0 ? refuse('usage', 'the message is empty') : ALLOWED
