import { hasEnded, type ActivityView } from './activity.js'
import type { Report } from './report.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'

/** The run wait cursor `<atMs>.<name>.<seq>` (SPEC.md 4.1 wait). Names may hold dots, so the time is everything
 * before the first dot and the sequence everything after the last. */
export interface Cursor {
  at: number
  name: string
  seq: number
}

/** SPEC.md 4.1 wait, run form: the cursor written as `<atMs>.<name>.<seq>`. */
export const formatCursor = (c: Cursor) => `${c.at}.${c.name}.${c.seq}`

/** SPEC.md 4.1 wait, run form: the cursor `--after` gives, read back; undefined when it is not one. */
export function parseCursor(text: string): Cursor | undefined {
  const first = text.indexOf('.')
  const last = text.lastIndexOf('.')
  if (first <= 0 || last <= first + 1 || last === text.length - 1) return undefined
  const at = text.slice(0, first)
  const seq = text.slice(last + 1)
  if (!/^\d{1,16}$/.test(at) || !/^\d{1,9}$/.test(seq)) return undefined
  return { at: Number(at), name: text.slice(first + 1, last), seq: Number(seq) }
}

/** SPEC.md 4.1 wait, run form (oldest first): total order of reports: time, then name, then sequence. */
export function compareCursor(a: Cursor, b: Cursor): number {
  if (a.at !== b.at) return a.at - b.at
  if (a.name !== b.name) return a.name < b.name ? -1 : 1
  return a.seq - b.seq
}

/** SPEC.md 4.1 wait, run form: a report after the cursor (every report, with no cursor). */
export const isAfter = (c: Cursor, after: Cursor | undefined) => !after || compareCursor(c, after) > 0

/** SPEC.md 4.1 wait, exit codes: 2 when the lane exited or stayed idle with no report, 3 on a timeout (the report
 * codes are reportExitCode in report-rules.ts). */
export const WAIT_EXIT = { noReport: 2, timeout: 3 } as const

/** SPEC.md 8 and 4.1 wait exit 2: a lane idle this long with no report makes `wait` exit 2. */
export const IDLE_LIMIT_MS = 10 * 60 * 1000

/** Who a wait member is, for the step that gets it going again: a lane's place, or a worker's issue. */
export type WaitPlace =
  { kind: 'lane'; run: string; key: string; role: string; judges: boolean } | { kind: 'worker'; issue: string }

export interface WaitMember {
  name: string
  activity: ActivityView
  reports: Report[]
  /** Its harness's turn ended with nothing pending and no report filed in it (activity.ts turnEndedWithoutReport). */
  noReport?: boolean
  place?: WaitPlace
  /** The brief it was started with (a file), for a respawn. */
  brief?: string
  /** It has filed a report at some time (before the cursor too): then an end is its own, no respawn is due. */
  filedAny?: boolean
}

type WaitPick =
  | { kind: 'report'; member: WaitMember; report: Report; cursor: Cursor }
  | { kind: 'exited'; detail: string; next: string[] }
  | { kind: 'idle'; detail: string; next: string[] }
  | { kind: 'pending' }

const stalled = (a: ActivityView, now: number, limitMs: number) => a.value === 'idle' && now - a.evidence.at >= limitMs

/** How a limit reads in a message: minutes, or seconds under one (a test build shortens it). */
const limitText = (ms: number) => (ms >= 60_000 ? `${ms / 60_000} minutes` : `${ms / 1000} s`)

/** A word for the shell, single-quoted unless it needs no quotes. */
export const shellWord = (s: string) => (/^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** Issue 24: the command that gets a member going again when a wait ends with no report from it: a message to a
 * harness that is alive and waits (its turn ended, or it stayed idle), a respawn in its directory with its brief for
 * one that ended without ever reporting. Undefined for a member that needs nothing (it exited after its report). */
export function nextStep(m: WaitMember): string | undefined {
  const verb = m.place?.kind === 'worker' ? 'worker' : 'lane'
  if (!hasEnded(m.activity.value)) {
    const failed = m.activity.evidence.source === 'error'
    const ended = failed ? 'Your last turn ended with an error and no report' : 'Your turn ended without a report'
    const text = `${ended}. Go on with the brief, then file your report with svc ${verb} report.`
    return `svc tell conv-${m.name} ${shellWord(text)}`
  }
  if (m.filedAny || m.reports.length || !m.place) return undefined
  const brief = m.brief ? `--brief ${shellWord(m.brief)}` : ''
  if (m.place.kind === 'worker') return `svc worker run ${shellWord(m.place.issue)} --reuse ${brief}`.trimEnd()
  const { run, key, role, judges } = m.place
  return `svc lane start --run ${run} ${judges ? '--for' : '--key'} ${key} --role ${role} --reuse ${brief}`.trimEnd()
}

/** The words of a member's activity: `idle (error: <text>)` when its harness said what went wrong. */
const activityWords = (a: ActivityView) =>
  a.evidence.detail && ['error', 'spawn'].includes(a.evidence.source)
    ? `${a.value} (${a.evidence.source}: ${a.evidence.detail})`
    : `${a.value}: ${a.evidence.source}`

/** SPEC.md 4.1 wait: the oldest report after the cursor, else exit 2 when no member can still report (all exited,
 * their turns ended with no report (issue 24: a harness that waits on a message has, for the wait, exited), or the
 * live ones idle for 10 minutes: `idleLimitMs`), else keep waiting. `after` is a cursor over (time, name, seq). An
 * exit 2 carries the steps that get the members going again (nextStep), not the same wait. */
export function pickNext(
  members: WaitMember[],
  after: Cursor | undefined,
  now: number,
  what: string,
  idleLimitMs = IDLE_LIMIT_MS,
  unit: 'lane' | 'worker' = 'lane',
): WaitPick {
  let best: { member: WaitMember; report: Report; cursor: Cursor } | undefined
  for (const member of members)
    for (const report of member.reports) {
      const cursor = { at: report.at, name: member.name, seq: report.seq }
      if (isAfter(cursor, after) && (!best || compareCursor(cursor, best.cursor) < 0)) best = { member, report, cursor }
    }
  if (best) return { kind: 'report', ...best }
  if (!members.length) return { kind: 'exited', detail: `${what} has no ${unit}s`, next: [] }
  const next = () => members.map(nextStep).filter((s): s is string => s !== undefined)
  const waiting = members.filter((m) => !hasEnded(m.activity.value) && !m.noReport)
  if (!waiting.length) {
    const turnsOver = members.some((m) => m.noReport)
    const one = members[0]
    const detail =
      members.length > 1
        ? `every ${unit} of ${what} has ${turnsOver ? 'exited or ended its turn' : 'exited'} with no further report`
        : one.noReport
          ? `${what} ended its turn with no report (${activityWords(one.activity)})`
          : `${what} exited (${activityWords(one.activity)}) with no report`
    return { kind: 'exited', detail, next: next() }
  }
  if (waiting.every((m) => stalled(m.activity, now, idleLimitMs)))
    return { kind: 'idle', detail: `${what} stayed idle for ${limitText(idleLimitMs)} with no report`, next: next() }
  return { kind: 'pending' }
}

/** The forms of `svc lane wait` and `svc worker wait`, in the order their values are given to oneWaitForm. */
const WAIT_FORMS = {
  lane: '<lane>, --run <key> or --parent <conv>',
  worker: '<worker>, --issue <ref> or --parent <conv>',
} as const

/** SPEC.md 4.1 wait: a wait watches exactly one of its forms (`given`: the value of each, absent when not given). */
export const oneWaitForm = (given: readonly unknown[], unit: keyof typeof WAIT_FORMS): Decision =>
  given.filter((x) => x !== undefined).length === 1
    ? ALLOWED
    : refuse('usage', `wait takes exactly one of ${WAIT_FORMS[unit]}`)

/** SPEC.md 4.1 wait: waiting on one lane or worker, --after is a report sequence number (none: from the start). */
export const afterSeq = (after: string | undefined, kind: 'lane' | 'worker'): Decision<{ seq: number }> =>
  after === undefined
    ? allow({ seq: 0 })
    : /^\d{1,9}$/.test(after)
      ? allow({ seq: Number(after) })
      : refuse('usage', `--after for one ${kind} is a report sequence number, not '${after}'`)

/** SPEC.md 4.1 wait: waiting on a set, --after is a cursor over (time, name, seq). */
export function afterCursor(after: string | undefined): Decision<{ cursor: Cursor | undefined }> {
  if (after === undefined) return allow({ cursor: undefined })
  const cursor = parseCursor(after)
  return cursor
    ? allow({ cursor })
    : refuse('usage', `--after '${after}' is not a cursor of the form <atMs>.<name>.<seq>`)
}
