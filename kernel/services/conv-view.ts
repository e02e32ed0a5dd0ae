import {
  deriveActivity,
  newestPhase,
  type ActivityFacts,
  type ActivityView,
  type Evidence,
} from '../domain/activity.js'
import { conversationKind, type ConversationRecord } from '../domain/conversation.js'
import type { ConvView } from '../port/port.js'
import type { Procs } from '../io/adapters.js'
import type { Runtime } from './runtime-facts.js'

/** Issue 27: the evidence that a host stopped answering, at `now`; undefined while it answers. */
export type HostLost = (host: string, now: number) => Evidence | undefined

/** The facts deriveActivity needs, read now: liveness is checked by pid and start time at every read, and a lane on
 * another host by whether that host answers. */
function activityFacts(
  rec: ConversationRecord,
  rt: Runtime,
  now: number,
  isAlive: Procs['isAlive'],
  hostLost?: HostLost,
): ActivityFacts {
  const s = rt.state
  const alive = s?.harness && isAlive(s.harness.pid, s.harness.start)
  const ended = s?.ended
    ? {
        source: s.ended.source,
        at: s.ended.at,
        detail: s.ended.signal ? `signal ${s.ended.signal}` : `exit code ${s.ended.exitCode}`,
      }
    : rec.ended
  return {
    createdAt: rec.createdAt,
    archived: rec.archived ? { source: 'archive', at: rec.archived.at } : undefined,
    spawnError: s?.spawnError ? { source: 'spawn', at: s.spawnError.at, detail: s.spawnError.message } : undefined,
    alive: alive ? { source: 'process check', at: now, detail: `pid ${s!.harness!.pid}` } : undefined,
    phase: newestPhase(s?.phase, rt.mark && s?.harness && rt.mark.at >= s.harness.at ? { ...rt.mark } : undefined),
    ended,
    hostLost: rec.lane?.host && hostLost ? hostLost(rec.lane.host, now) : undefined,
  }
}

export function convView(
  rec: ConversationRecord,
  rt: Runtime,
  now: number,
  isAlive: Procs['isAlive'],
  hostLost?: HostLost,
): ConvView {
  const facts = activityFacts(rec, rt, now, isAlive, hostLost)
  const a = deriveActivity(facts, now)
  return {
    id: rec.id,
    name: rec.name,
    kind: conversationKind(rec),
    parent: rec.parent,
    successor: rec.successor,
    project: rec.project,
    harness: rec.harness,
    model: rt.state?.model ?? rec.model,
    effort: rec.effort,
    title: rec.title,
    cwd: rec.cwd,
    createdAt: rec.createdAt,
    archived: Boolean(rec.archived),
    activity: a.value,
    ...(a.reason ? { reason: a.reason } : {}),
    // A refused runner file read as absent: the evidence says which file and why.
    evidence: rt.problem
      ? { ...a.evidence, detail: [a.evidence.detail, rt.problem].filter(Boolean).join('; ') }
      : a.evidence,
    ended: facts.ended,
    cost: rt.state?.cost,
    ...(rt.state?.turn ? { turn: rt.state.turn } : {}),
    pending: rt.state?.pending
      ? {
          kind: rt.state.pending.kind,
          tool: rt.state.pending.tool,
          input: rt.state.pending.input,
          at: rt.state.pending.at,
        }
      : undefined,
    lane: rec.lane,
    worker: rec.worker,
  }
}

/** The activity of a view in the shape the domain rules take. */
export const activityOf = (v: Pick<ConvView, 'activity' | 'reason' | 'evidence'>): ActivityView => ({
  value: v.activity,
  ...(v.reason ? { reason: v.reason } : {}),
  evidence: v.evidence,
})
