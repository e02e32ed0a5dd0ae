import { isJudgeRole, type Verdict } from './keys.js'
import {
  byCreation,
  hasDoneReport,
  inChain,
  judgesIteration,
  newestLane,
  newestVerdict,
  type LaneChainNow,
  type LaneNow,
} from './lane.js'
import { newestBy } from './newest.js'

interface VerdictView {
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

/** SPEC.md 8 Pairing and chains, rule 1: the critics of builder iteration n are the critic and verifier lanes of the
 * same run and key whose judged row has iteration n. */
export const criticsOf = <T extends Pick<LaneChainNow, 'rec'>>(
  all: readonly T[],
  run: string,
  key: string,
  iteration: number,
): T[] => all.filter((l) => inChain(l.rec.lane, run, key) && judgesIteration(l.rec.lane, iteration))

const buildersOf = (all: LaneChainNow[], run: string, key: string) =>
  all.filter((l) => l.rec.lane.role === 'builder' && inChain(l.rec.lane, run, key))

/** Where a builder iteration stands now: the head of its newest lane's worktree if read, else its newest done
 * report. */
function builderHead(all: LaneChainNow[], run: string, key: string, iteration: number): string | undefined {
  const rows = buildersOf(all, run, key).filter((l) => l.rec.lane.iteration === iteration)
  const live = newestLane(rows.filter((r) => r.head))
  if (live?.head) return live.head
  return newestBy(
    rows.flatMap((r) => r.reports.filter((x) => x.status === 'done' && x.head)),
    (x) => x.at,
  )?.head
}

function verdictOf(critic: LaneChainNow, all: LaneChainNow[]): VerdictView | undefined {
  const r = newestVerdict(critic.reports)
  if (!r?.verdict) return undefined
  const f = critic.rec.lane.for
  const now = f ? builderHead(all, critic.rec.lane.run, critic.rec.lane.key, f.iteration) : undefined
  return {
    value: r.verdict,
    defects: r.defects ?? 0,
    by: critic.rec.id,
    file: r.verdictFile,
    judged: r.judged,
    stale: Boolean(r.judged && now && now !== r.judged),
  }
}

/** SPEC.md 4.1 list VERDICT (8 Pairing and chains, rule 4): the verdict a list row shows: a critic's own; for a
 * builder, the newest verdict of its iteration's critics. */
export function rowVerdict(info: LaneChainNow, all: LaneChainNow[]): VerdictView | undefined {
  const l = info.rec.lane
  if (isJudgeRole(l.role)) return verdictOf(info, all)
  if (l.role !== 'builder') return undefined
  const verdicts = criticsOf(all, l.run, l.key, l.iteration)
    .map((c) => ({ c, r: newestVerdict(c.reports) }))
    .filter((x) => x.r)
  const newest = newestBy(verdicts, (x) => x.r!.at)
  return newest && verdictOf(newest.c, all)
}

/** SPEC.md 4.1 show: `i<n> built → critic c<n>: <VERDICT> (<count> defects) → ...` over the builder iterations of
 * one run and key and the critics of each. */
export function chainText(all: LaneChainNow[], run: string, key: string): string {
  const builders = buildersOf(all, run, key)
  const iterations = [...new Set(builders.map((b) => b.rec.lane.iteration))].sort((a, b) => a - b)
  const parts: string[] = []
  for (const n of iterations) {
    const rows = builders.filter((b) => b.rec.lane.iteration === n)
    parts.push(`i${n} ${rows.some((r) => hasDoneReport(r.reports)) ? 'built' : 'building'}`)
    for (const c of criticsOf(all, run, key, n).sort(byCreation)) {
      const v = verdictOf(c, all)
      parts.push(`${c.rec.lane.role} c${c.rec.lane.iteration}: ${v ? `${v.value} (${v.defects} defects)` : 'pending'}`)
    }
  }
  return parts.join(' → ')
}

/** The verdict a builder answers: the critic conversation, its verdict and verdict file. */
export interface AnsweredVerdict {
  id: string
  verdict?: string
  verdictFile?: string
}

/** SPEC.md 8 Pairing and chains, rule 2: a builder of iteration n >= 2 answers the newest critic of iteration n - 1
 * created before it. */
export function answeredVerdict(
  runLanes: LaneNow[],
  key: string,
  iteration: number,
  before: number,
): AnsweredVerdict | undefined {
  const c = newestLane(
    runLanes.filter(
      (l) => l.rec.lane.key === key && judgesIteration(l.rec.lane, iteration) && l.rec.createdAt < before,
    ),
  )
  if (!c) return undefined
  const verdict = newestVerdict(c.reports)
  return { id: c.rec.id, verdict: verdict?.verdict, verdictFile: verdict?.verdictFile }
}
