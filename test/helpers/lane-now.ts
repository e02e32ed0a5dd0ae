import type { LaneFacts } from '../../kernel/domain/conversation.js'
import type { Role } from '../../kernel/domain/keys.js'
import type { LaneNow } from '../../kernel/domain/lane.js'
import type { Report } from '../../kernel/domain/report.js'

// The lanes and reports the rulebook's tables are written in: a lane `id` of run r1 and key k (unless given), created
// at time `id`, in directory d<id>.

export const report = (seq: number, at: number, extra: Partial<Report> = {}): Report => ({
  seq,
  at,
  status: 'done',
  body: 'b',
  ...extra,
})

export const row = (
  id: string,
  role: Role,
  iteration: number,
  o: { live?: boolean; reports?: Report[]; lane?: Partial<LaneFacts>; key?: string; run?: string; head?: string } = {},
): LaneNow => ({
  rec: {
    id,
    name: `n${id}`,
    createdAt: Number(id),
    harness: 'claude',
    cwd: `/lanes/d${id}`,
    lane: { run: o.run ?? 'r1', key: o.key ?? 'k', role, dir: `d${id}`, root: '/lanes', iteration, ...o.lane },
  },
  live: o.live ?? false,
  reports: o.reports ?? [],
  ...(o.head ? { head: o.head } : {}),
})
