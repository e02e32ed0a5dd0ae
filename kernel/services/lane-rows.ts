import { isLive } from '../domain/activity.js'
import type { LaneNow, LaneRecord } from '../domain/lane.js'
import type { KernelContext } from './context.js'

/** Every lane of a run with its liveness and reports, and whether its host answers, as the launch rules need them. */
export async function laneRows(ctx: KernelContext, run: string): Promise<LaneNow[]> {
  const now = ctx.io.clock.now()
  const lanes = ctx.store.all().filter((r) => r.lane?.run === run) as LaneRecord[]
  return Promise.all(
    lanes.map(async (rec) => {
      const hostLost = rec.lane.host ? ctx.hostLost(rec.lane.host, now) : undefined
      return {
        rec,
        live: isLive(ctx.view(rec, now).activity),
        reports: await ctx.store.reports(rec.name),
        ...(hostLost ? { hostLost } : {}),
      }
    }),
  )
}
