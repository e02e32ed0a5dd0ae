import type { ConversationRecord } from '../domain/conversation.js'
import {
  IDLE_LIMIT_MS,
  afterCursor,
  afterSeq,
  formatCursor,
  oneWaitForm,
  pickNext,
  type Cursor,
  type WaitMember,
} from '../domain/wait.js'
import { isJudgeRole, keysFit } from '../domain/keys.js'
import { turnEndedWithoutReport } from '../domain/activity.js'
import { convFiles } from '../io/home.js'
import type { ReportFrom } from '../domain/list-show.js'
import type { PortInput, WaitResult } from '../port/port.js'
import type { KernelContext, KernelEvent } from './context.js'
import { activityOf } from './conv-view.js'
import { decided } from './decided.js'

/** Liveness changes (a harness dying) are not file events; they are rechecked this often while waiting. */
const LIVENESS_RECHECK_MS = 1000
/** SPEC.md section 8's 10 minutes; a test build may shorten it (SERVICE_TEST_IDLE_LIMIT_MS). */
const idleMs = (ctx: KernelContext) => ctx.io.timing('IDLE_LIMIT', IDLE_LIMIT_MS)

const laneRef = (r: ConversationRecord): ReportFrom =>
  r.lane
    ? { id: r.id, name: r.name, run: r.lane.run, key: r.lane.key, role: r.lane.role, iteration: r.lane.iteration }
    : { id: r.id, name: r.name, role: 'worker', iteration: r.worker!.iteration, issue: r.worker!.issue }

/** Who a member is and the brief it was started with: what a step that gets it going again names. */
function placeOf(ctx: KernelContext, r: ConversationRecord): Pick<WaitMember, 'place' | 'brief'> {
  const dir = convFiles(ctx.home, r.name).dir
  if (r.lane)
    return {
      place: { kind: 'lane', run: r.lane.run, key: r.lane.key, role: r.lane.role, judges: isJudgeRole(r.lane.role) },
      brief: convFiles(ctx.home, r.name).brief,
    }
  if (r.worker) return { place: { kind: 'worker', issue: r.worker.issue }, brief: `${dir}/worker-brief.md` }
  return {}
}

/** What one wait watches: one lane or worker, or a set (a run, an issue, a parent's lanes or workers). */
interface WaitSet {
  members: () => ConversationRecord[]
  /** The cursor over (time, name, seq) that reports must follow. */
  after: Cursor | undefined
  /** For one lane, `--after` is a sequence number: the reports after it. */
  afterSeq: number
  what: string
  /** What the set's members are called in its messages (lanes unless said). */
  unit?: 'lane' | 'worker'
  format: (c: Cursor) => string
}

/** The set of one lane or worker: `--after` is a report sequence number. */
export function oneMember(
  rec: ConversationRecord,
  after: string | undefined,
  kind: 'lane' | 'worker',
  what: string,
): WaitSet {
  const { seq } = decided(afterSeq(after, kind))
  return { members: () => [rec], after: undefined, afterSeq: seq, what, format: (c) => String(c.seq) }
}

/** A set's `--after`: a cursor over (time, name, seq). */
export const setCursor = (after: string | undefined): Cursor | undefined => decided(afterCursor(after)).cursor

function waitSet(ctx: KernelContext, input: PortInput<'laneWait'>): WaitSet {
  decided(oneWaitForm([input.lane, input.run, input.parent], 'lane'))
  if (input.lane !== undefined) {
    const rec = ctx.resolveLane(input.lane)
    return oneMember(
      rec,
      input.after,
      'lane',
      `lane ${rec.lane.run}/${rec.lane.key} ${rec.lane.role} i${rec.lane.iteration}`,
    )
  }
  const after = setCursor(input.after)
  if (input.run !== undefined) {
    decided(keysFit({ run: input.run }))
    const run = input.run
    return {
      members: () => ctx.store.all().filter((r) => r.lane?.run === run),
      after,
      afterSeq: 0,
      what: `run ${run}`,
      format: formatCursor,
    }
  }
  const parent = ctx.resolve(input.parent!)
  return {
    members: () => ctx.store.all().filter((r) => r.lane && r.parent === parent.id),
    after,
    afterSeq: 0,
    what: `the lanes of conv ${parent.id}`,
    format: formatCursor,
  }
}

export const laneWait = (ctx: KernelContext, input: PortInput<'laneWait'>): Promise<WaitResult> =>
  waitOn(ctx, waitSet(ctx, input), input)

/** One long poll of `svc lane wait` or `svc worker wait`: returns the next report of the set after the cursor as soon
 * as it is stored (woken by the report's event), or why none can come, or `pending` when this poll's time is up. */
export async function waitOn(
  ctx: KernelContext,
  set: WaitSet,
  input: { after?: string; timeoutMs: number },
): Promise<WaitResult> {
  const evaluate = async (): Promise<WaitResult | undefined> => {
    const now = ctx.io.clock.now()
    const recs = set.members()
    const members: WaitMember[] = await Promise.all(
      recs.map(async (r) => {
        const view = ctx.view(r, now)
        const activity = activityOf(view)
        const all = await ctx.store.reports(r.name)
        return {
          name: r.name,
          activity,
          reports: all.filter((x) => x.seq > set.afterSeq),
          noReport: turnEndedWithoutReport(activity, view.turn, all),
          filedAny: all.length > 0,
          ...placeOf(ctx, r),
        }
      }),
    )
    const pick = pickNext(members, set.after, now, set.what, idleMs(ctx), set.unit)
    if (pick.kind === 'report') {
      const rec = recs.find((r) => r.name === pick.member.name)!
      return { kind: 'report', lane: laneRef(rec), report: pick.report, cursor: set.format(pick.cursor) }
    }
    if (pick.kind === 'pending') return undefined
    return { ...pick, cursor: input.after }
  }
  const first = await evaluate()
  if (first || input.timeoutMs === 0) return first ?? { kind: 'pending', cursor: input.after }
  return new Promise<WaitResult>((resolve) => {
    let busy = false
    let again = false
    const finish = (r: WaitResult) => {
      clearTimeout(limit)
      clearInterval(recheck)
      ctx.events.off('change', onEvent)
      resolve(r)
    }
    const check = async () => {
      if (busy) {
        again = true
        return
      }
      busy = true
      try {
        do {
          again = false
          const r = await evaluate()
          if (r) return finish(r)
        } while (again)
      } catch (e) {
        finish({ kind: 'exited', detail: (e as Error).message, cursor: input.after })
      } finally {
        busy = false
      }
    }
    const onEvent = (e: KernelEvent) => {
      if (e.what === 'report' || e.what === 'state' || e.what === 'record') void check()
    }
    ctx.events.on('change', onEvent)
    const recheck = setInterval(() => void check(), LIVENESS_RECHECK_MS)
    const limit = setTimeout(() => finish({ kind: 'pending', cursor: input.after }), input.timeoutMs)
  })
}
