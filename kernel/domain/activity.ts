import * as v from 'valibot'
import type { ConversationRecord } from './conversation.js'
import { isGitBacked, isJudgeRole, type NeedsYouReason, type Phase, type Role } from './keys.js'
import { newest } from './newest.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'
import { hasDoneReport, holdsItsDirectory } from './lane.js'
import type { Report } from './report.js'

/** SPEC.md 3, activity table: the values, in the order their rows are checked. `host-lost` (issue 27) is a lane on
 * another host whose host stopped answering before the lane's end arrived: what it does there is not known now. */
export const ACTIVITIES = [
  'failed-to-start',
  'host-lost',
  'needs-you',
  'working',
  'idle',
  'starting',
  'stopped',
] as const
export type Activity = (typeof ACTIVITIES)[number]

/** Where a fact came from, and when: every activity carries the evidence that decided it. */
export const EvidenceSchema = v.object({ source: v.string(), at: v.number(), detail: v.optional(v.string()) })
export type Evidence = v.InferOutput<typeof EvidenceSchema>

export interface ActivityFacts {
  createdAt: number
  archived?: Evidence
  spawnError?: Evidence
  /** The harness process checked at read time (pid and start time); undefined when there is none. */
  alive?: Evidence
  phase?: { value: Phase; reason?: NeedsYouReason } & Evidence
  ended?: Evidence
  /** Issue 27: the lane runs on another host that has not answered for the lost limit (hostLostEvidence); undefined
   * for a lane here or on a host that answers. */
  hostLost?: Evidence
}

export interface ActivityView {
  value: Activity
  reason?: NeedsYouReason
  evidence: Evidence
}

/** SPEC.md 3 starting row and 8: a lane counts as starting for this long after creation. */
export const STARTING_WINDOW_MS = 3 * 60 * 1000

/** SPEC.md section 3: the rows checked top to bottom, first match wins; an archived lane is always stopped. A lane
 * whose host is lost (issue 27) and whose end has not arrived is `host-lost`: neither alive nor ended, never deleted
 * for it, and back to what its facts say once the host answers. */
export function deriveActivity(f: ActivityFacts, now: number): ActivityView {
  if (f.archived) return { value: 'stopped', evidence: f.archived }
  if (f.spawnError) return { value: 'failed-to-start', evidence: f.spawnError }
  if (f.hostLost && !f.ended) return { value: 'host-lost', evidence: f.hostLost }
  if (f.alive) {
    const phase = f.phase
    if (phase?.value === 'needs-you') return { value: 'needs-you', reason: phase.reason, evidence: phase }
    if (phase?.value === 'working') return { value: 'working', evidence: phase }
    return { value: 'idle', evidence: phase ?? f.alive }
  }
  if (!f.ended && now - f.createdAt < STARTING_WINDOW_MS)
    return { value: 'starting', evidence: { source: 'launch', at: f.createdAt } }
  return { value: 'stopped', evidence: f.ended ?? { source: 'no live harness', at: f.createdAt } }
}

/** SPEC.md 3 related rule 1 (and 4.1 launch rule 3): live for the one-live-lane rule: the harness is alive, or the lane
 * is still starting. A lane whose host is lost may still be running there: it counts as live, so nothing replaces,
 * reaps or archives it, and a wait on it goes on until the host answers. */
export const isLive = (a: Activity) =>
  a === 'needs-you' || a === 'working' || a === 'idle' || a === 'starting' || a === 'host-lost'

/** SPEC.md 3 and 4.1 wait exit 2: ended for good: stopped, or never started. Nothing it could still do (report, take a
 * message) will happen. */
export const hasEnded = (a: Activity) => !isLive(a)

/** SPEC.md 3, the needs-you, working and idle rows: of several phase statements (runner stream, hook, self-mark), the
 * newest wins. */
export const newestPhase = <T extends { at: number }>(...candidates: (T | undefined)[]): T | undefined =>
  newest(candidates)

/** Evidence sources that carry the harness's own words: a failure to start, a turn that ended in an error, retries. */
const HARNESS_WORDS = ['spawn', 'error', 'retrying']

/** SPEC.md 3 and 4.1 list, the evidence beside ACTIVITY: `idle (error: …)`, `working (retrying: …)`, `failed-to-start
 * (spawn: …)` when the activity rests on what the harness itself said went wrong, and `host-lost (host a: …)` when
 * its host stopped answering (issue 27); undefined otherwise. Lists print it beside their table, so no failure stays
 * hidden. */
export function harnessWords(a: ActivityView): string | undefined {
  if (a.value === 'host-lost') return `host-lost (${a.evidence.source}: ${a.evidence.detail ?? 'no answer'})`
  if (!HARNESS_WORDS.includes(a.evidence.source) || !a.evidence.detail) return undefined
  return `${a.value}${a.reason ? ` (${a.reason})` : ''} (${a.evidence.source}: ${a.evidence.detail})`
}

/** A harness turn: from a message to the harness to the idle that ends it (runner-state.ts `turn`). */
export interface Turn {
  started: number
  ended?: number
}

/** Issue 24, status truth: the harness's last turn ended, nothing is pending (idle: no question, no held message),
 * and no report was filed since that turn began. No report will come by itself: the lane shows `idle (no report)` and
 * a wait counts it as exited (SPEC.md 4.1 wait exit 2) at once, not after the idle limit. */
export const turnEndedWithoutReport = (a: ActivityView, turn: Turn | undefined, reports: { at: number }[]): boolean =>
  a.value === 'idle' && turn?.ended !== undefined && !reports.some((r) => r.at >= turn.started)

/** SPEC.md 3 related rule 3 and 4.2: a critic or verifier that has filed its done report takes no further messages
 * (the caller waives this with --force). `reports` are the conversation's own. */
export function takesMessages(
  rec: Pick<ConversationRecord, 'id' | 'name' | 'lane'>,
  reports: Pick<Report, 'status'>[],
): Decision {
  if (!isJudgeRole(rec.lane?.role) || !hasDoneReport(reports)) return ALLOWED
  return refuse(
    'conflict',
    `conv ${rec.id} (${rec.name}) is a ${rec.lane!.role} that has filed its done report; it takes no further messages`,
    'pass --force to send it anyway',
  )
}

/** SPEC.md 3 related rule 4: git facts (branch, head, ahead, dirty) are read only for git-backed lanes that are not
 * archived (nor reaped: what is at the path then is not the lane's). */
export const readsGitFacts = (l: { lane: { role: Role }; archived?: unknown; reaped?: unknown }) =>
  isGitBacked(l.lane.role) && holdsItsDirectory(l)

/** Where a lane's git facts come from, for a lane that has them (readsGitFacts): its worktree here, which the kernel
 * reads, or, for a lane on another host (issue 27), what that host's runner last read there and sent home. */
export const gitFactsFrom = (l: { lane: { role: Role; host?: string }; archived?: unknown; reaped?: unknown }) =>
  !readsGitFacts(l) ? undefined : l.lane.host === undefined ? ('worktree' as const) : ('host' as const)

/** Issue 27: the evidence of a lost host: when it was last heard from, and why its link is down when that is known
 * (`problem`, the link's last failure in ssh's words). */
export function hostLostEvidence(f: { host: string; lastHeardAt: number; now: number; problem?: string }): Evidence {
  const silent = `no answer for ${Math.max(0, Math.round((f.now - f.lastHeardAt) / 1000))} s`
  return { source: `host ${f.host}`, at: f.lastHeardAt, detail: f.problem ? `${silent}; ${f.problem}` : silent }
}
