import type { LaneRecord } from './conversation.js'
import { isJudgeRole, type Verdict } from './keys.js'
import { newestBy } from './newest.js'
import type { Report } from './report.js'


export interface LaneInfo {
  rec: LaneRecord
  reports: Report[]
  /** Current head of the worktree, when git facts were read. */
  head?: string
}

export interface VerdictView {
  value: Verdict
  defects: number
  /** The critic or verifier conversation that filed it. */
  by: string
  file?: string
  /** The commit it judged. */
  judged?: string
  /** The builder's branch has moved past the judged commit. */
  stale: boolean
}

const isJudge = (l: LaneRecord) => isJudgeRole(l.lane.role)

/** SPEC.md "Pairing and chains": the critics of builder iteration n are the critic and verifier lanes of the same
 * run and key whose judged row has iteration n. */
export const criticsOf = (all: LaneInfo[], run: string, key: string, iteration: number) =>
  all.filter((l) => isJudge(l.rec) && l.rec.lane.run === run && l.rec.lane.key === key && l.rec.lane.for?.iteration === iteration)

/** Where a builder iteration stands now: the head of its newest lane's worktree if read, else its newest done report. */
function builderHead(all: LaneInfo[], run: string, key: string, iteration: number): string | undefined {
  const rows = all.filter((l) => l.rec.lane.role === 'builder' && l.rec.lane.run === run && l.rec.lane.key === key && l.rec.lane.iteration === iteration)
  const live = newestBy(rows.filter((r) => r.head), (r) => r.rec.createdAt)
  if (live?.head) return live.head
  return newestBy(rows.flatMap((r) => r.reports.filter((x) => x.status === 'done' && x.head)), (x) => x.at)?.head
}

function verdictOf(critic: LaneInfo, all: LaneInfo[]): VerdictView | undefined {
  const r = newestBy(critic.reports.filter((x) => x.verdict), (x) => x.at)
  if (!r?.verdict) return undefined
  const f = critic.rec.lane.for
  const now = f ? builderHead(all, critic.rec.lane.run, critic.rec.lane.key, f.iteration) : undefined
  return { value: r.verdict, defects: r.defects ?? 0, by: critic.rec.id, file: r.verdictFile, judged: r.judged, stale: Boolean(r.judged && now && now !== r.judged) }
}

/** The verdict a list row shows: a critic's own; for a builder, the newest verdict of its iteration's critics. */
export function rowVerdict(info: LaneInfo, all: LaneInfo[]): VerdictView | undefined {
  const l = info.rec.lane
  if (isJudge(info.rec)) return verdictOf(info, all)
  if (l.role !== 'builder') return undefined
  const verdicts = criticsOf(all, l.run, l.key, l.iteration).map((c) => ({ c, r: newestBy(c.reports.filter((x) => x.verdict), (x) => x.at) })).filter((x) => x.r)
  const newest = newestBy(verdicts, (x) => x.r!.at)
  return newest && verdictOf(newest.c, all)
}

export const newestReport = (info: LaneInfo) => info.reports.at(-1)

/** SPEC.md 4.1 show: `i<n> built → critic c<n>: <VERDICT> (<count> defects) → ...` over the builder iterations of
 * one run and key and the critics of each. */
export function chainText(all: LaneInfo[], run: string, key: string): string {
  const builders = all.filter((l) => l.rec.lane.role === 'builder' && l.rec.lane.run === run && l.rec.lane.key === key)
  const iterations = [...new Set(builders.map((b) => b.rec.lane.iteration))].sort((a, b) => a - b)
  const parts: string[] = []
  for (const n of iterations) {
    const rows = builders.filter((b) => b.rec.lane.iteration === n)
    parts.push(`i${n} ${rows.some((r) => r.reports.some((x) => x.status === 'done')) ? 'built' : 'building'}`)
    for (const c of criticsOf(all, run, key, n).sort((a, b) => a.rec.createdAt - b.rec.createdAt)) {
      const v = verdictOf(c, all)
      const label = c.rec.lane.role === 'critic' ? 'critic' : 'verifier'
      parts.push(`${label} c${c.rec.lane.iteration}: ${v ? `${v.value} (${v.defects} defects)` : 'pending'}`)
    }
  }
  return parts.join(' → ')
}
