import type { ActivityView } from './activity.js'
import { oneLine } from './errors.js'
import type { NeedsYouReason, ReportStatus } from './keys.js'
import type { LanePlace } from './lane.js'
import type { NotifyEvent } from './notify-config.js'
import type { Report } from './report.js'

/** What a webhook receives (as JSON) and a command reads on stdin. Small: the deck has the rest. */
export interface NotificationBody {
  event: NotifyEvent
  conv: { id: string; name: string; title?: string }
  lane?: LanePlace
  status?: ReportStatus
  firstLine?: string
  reason?: NeedsYouReason
  /** When it happened (ISO 8601). */
  at: string
}

export interface ConvFacts {
  id: string
  name: string
  title?: string
  lane?: LanePlace
}

/** A conversation's activity turned needs-you: it is needs-you now and was not at the last look, or it is a new
 * needs-you (newer evidence) since then. A re-read of the same state is no event. With no earlier look, only a
 * needs-you that began at or after `since` (when notifications started) is one: an old one is no news. */
export function turnedNeedsYou(before: ActivityView | undefined, after: ActivityView, since: number): boolean {
  if (after.value !== 'needs-you') return false
  if (!before) return after.evidence.at >= since
  return before.value !== 'needs-you' || before.evidence.at !== after.evidence.at
}

/** Reports not yet notified: those after `lastSeq`; with no earlier look, those filed at or after `since`. */
export function newReports(reports: readonly Report[], lastSeq: number | undefined, since: number): Report[] {
  return reports.filter((r) => (lastSeq === undefined ? r.at >= since : r.seq > lastSeq))
}

const FIRST_LINE_MAX = 200

/** The first line of a report with any text, on one bounded line. */
export function firstLineOf(body: string): string | undefined {
  const line = body.split('\n').find((l) => l.trim())
  return line === undefined ? undefined : oneLine(line.trim(), FIRST_LINE_MAX)
}

const convPart = (c: ConvFacts) => ({ id: c.id, name: c.name, ...(c.title ? { title: c.title } : {}) })
const lanePart = (c: ConvFacts) =>
  c.lane ? { lane: { run: c.lane.run, key: c.lane.key, role: c.lane.role, iteration: c.lane.iteration } } : {}

export function needsYouBody(c: ConvFacts, activity: ActivityView): NotificationBody {
  return {
    event: 'needs-you',
    conv: convPart(c),
    ...lanePart(c),
    ...(activity.reason ? { reason: activity.reason } : {}),
    at: new Date(activity.evidence.at).toISOString(),
  }
}

export function reportBody(c: ConvFacts, report: Report): NotificationBody {
  const firstLine = firstLineOf(report.body)
  return {
    event: 'report',
    conv: convPart(c),
    ...lanePart(c),
    status: report.status,
    ...(firstLine ? { firstLine } : {}),
    at: new Date(report.at).toISOString(),
  }
}

/** The short title and text a desktop command shows. */
export function notificationText(b: NotificationBody): { title: string; text: string } {
  const who = b.lane ? `${b.lane.run}/${b.lane.key} ${b.lane.role} i${b.lane.iteration}` : `conv ${b.conv.name}`
  if (b.event === 'needs-you')
    return {
      title: `${who} needs you${b.reason ? ` (${b.reason})` : ''}`,
      text: b.conv.title ?? `conv ${b.conv.id} (${b.conv.name})`,
    }
  return { title: `${who} reported ${b.status}`, text: b.firstLine ?? '(empty report)' }
}
