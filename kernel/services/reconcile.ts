import { mayStillChange } from '../domain/conversation.js'
import type { KernelContext } from './context.js'

/** Runners are independent of the kernel. Compare what the store says with the processes that exist: a runner
 * still alive is adopted as it is; one that is gone without having written its end is marked ended, with the
 * evidence. Run at kernel start and on a slow timer (file events can be lost). */
export async function reconcile(
  ctx: KernelContext,
  opts: { graceMs: number },
): Promise<{ adopted: string[]; ended: string[] }> {
  const adopted: string[] = []
  const ended: string[] = []
  const now = ctx.io.clock.now()
  for (const rec of ctx.store.all()) {
    // The state, read fresh, only for a conversation that is driven.
    const stateNow = () => (ctx.facts.invalidate(rec.name), ctx.facts.get(rec.name).state)
    // A lane on a host is known from its host's events, never from the processes here.
    if (rec.lane?.host || !mayStillChange(rec, stateNow)) continue
    const s = ctx.facts.get(rec.name).state
    const runnerAlive = Boolean(s?.runner && ctx.io.procs.isAlive(s.runner.pid, s.runner.start))
    const harnessAlive = Boolean(s?.harness && ctx.io.procs.isAlive(s.harness.pid, s.harness.start))
    if (runnerAlive || harnessAlive || ctx.runners.runnerAlive(rec.name)) {
      adopted.push(rec.name)
      continue
    }
    if (now - rec.createdAt < opts.graceMs) continue
    const detail = s?.runner
      ? `runner pid ${s.runner.pid} is gone and wrote no end` +
        `${s.harness ? `; harness pid ${s.harness.pid} is gone too` : ''}`
      : 'the runner never published its state'
    await ctx.store.update(rec.id, { ended: { at: now, source: 'reconcile', detail } })
    ctx.log('warn', `conv-${rec.name}: marked ended: ${detail}`)
    ctx.emit({ name: rec.name, what: 'state' })
    ended.push(rec.name)
  }
  return { adopted, ended }
}
