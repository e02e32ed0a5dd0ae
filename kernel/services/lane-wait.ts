import type { ConversationRecord } from '../domain/conversation.js'
import { formatCursor, parseCursor, type Cursor } from '../domain/cursor.js'
import { SvcError } from '../domain/errors.js'
import { invalidRunKey, isRunKey } from '../domain/keys.js'
import { IDLE_LIMIT_MS, pickNext, type WaitMember } from '../domain/wait-pick.js'
import { testTiming } from '../io/test-timing.js'
import type { LaneRef } from '../domain/lane-lines.js'
import type { PortInput, WaitResult } from '../port.js'
import type { KernelContext, KernelEvent } from './context.js'
import { activityOf } from './conv-view.js'

/** Liveness changes (a harness dying) are not file events; they are rechecked this often while waiting. */
const LIVENESS_RECHECK_MS = 1000
/** SPEC.md section 8's 10 minutes; a test build may shorten it (SERVICE_TEST_IDLE_LIMIT_MS). */
const IDLE_MS = testTiming('IDLE_LIMIT', IDLE_LIMIT_MS)

const laneRef = (r: ConversationRecord): LaneRef => ({ id: r.id, name: r.name, run: r.lane!.run, key: r.lane!.key, role: r.lane!.role, iteration: r.lane!.iteration })

interface WaitSet {
  members: () => ConversationRecord[]
  /** The cursor over (time, name, seq) that reports must follow. */
  after: Cursor | undefined
  /** For one lane, `--after` is a sequence number: the reports after it. */
  afterSeq: number
  what: string
  format: (c: Cursor) => string
}

function waitSet(ctx: KernelContext, input: PortInput<'laneWait'>): WaitSet {
  const forms = [input.lane, input.run, input.parent].filter((x) => x !== undefined).length
  if (forms !== 1) throw new SvcError('usage', 'wait takes exactly one of <lane>, --run <key> or --parent <conv>')
  if (input.lane !== undefined) {
    const rec = ctx.resolveLane(input.lane)
    if (input.after !== undefined && !/^\d{1,9}$/.test(input.after)) throw new SvcError('usage', `--after for one lane is a report sequence number, not '${input.after}'`)
    const seq = input.after === undefined ? 0 : Number(input.after)
    return { members: () => [rec], after: undefined, afterSeq: seq, what: `lane ${rec.lane.run}/${rec.lane.key} ${rec.lane.role} i${rec.lane.iteration}`, format: (c) => String(c.seq) }
  }
  let after: Cursor | undefined
  if (input.after !== undefined) {
    after = parseCursor(input.after)
    if (!after) throw new SvcError('usage', `--after '${input.after}' is not a cursor of the form <atMs>.<name>.<seq>`)
  }
  if (input.run !== undefined) {
    if (!isRunKey(input.run)) throw new SvcError('usage', invalidRunKey(input.run))
    const run = input.run
    return { members: () => ctx.store.all().filter((r) => r.lane?.run === run), after, afterSeq: 0, what: `run ${run}`, format: formatCursor }
  }
  const parent = ctx.resolve(input.parent!)
  return { members: () => ctx.store.all().filter((r) => r.lane && r.parent === parent.id), after, afterSeq: 0, what: `the lanes of conv ${parent.id}`, format: formatCursor }
}

/** One long poll of `svc lane wait`: returns the next report after the cursor as soon as it is stored (woken by the
 * report's event), or why none can come, or `pending` when this poll's time is up. */
export async function laneWait(ctx: KernelContext, input: PortInput<'laneWait'>): Promise<WaitResult> {
  const set = waitSet(ctx, input)
  const evaluate = async (): Promise<WaitResult | undefined> => {
    const now = Date.now()
    const recs = set.members()
    const members: WaitMember[] = await Promise.all(
      recs.map(async (r) => ({ name: r.name, activity: activityOf(ctx.view(r, now)), reports: (await ctx.store.reports(r.name)).filter((x) => x.seq > set.afterSeq) })),
    )
    const pick = pickNext(members, set.after, now, set.what, IDLE_MS)
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
