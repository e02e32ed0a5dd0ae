import { activityShown } from './activity.js'
import { costText } from './format.js'
import type { LaneCellsInput } from './lane.js'

/** SPEC.md 4.1 list: the columns, in order. */
export const LIST_COLUMNS = ['ID', 'RUN/KEY', 'ROLE', 'ITER', 'ACTIVITY', 'REPORT', 'FOR', 'VERDICT', 'BRANCH@SHA', 'AHEAD', 'DIRTY', 'MODEL', 'COST'] as const

/** The cells of a lane's row, for the CLI's list and the deck alike (the deck's browser bundle imports this very
 * module), so each rule is written once: `-` where a fact does not apply or is unknown. */
export function laneCells(v: LaneCellsInput): string[] {
  const dash = (s: string | undefined) => s ?? '-'
  const branch = v.git ? v.git.branch : v.branch
  const head = v.git?.head
  const ahead = v.git?.ahead
  const dirty = v.git?.dirty
  return [
    v.id,
    `${v.run}/${v.key}`,
    v.role,
    `i${v.iteration}`,
    activityShown(v),
    dash(v.report?.status),
    v.for ? `${v.for.key} i${v.for.iteration}` : '-',
    v.verdict ? `${v.verdict.value} ${v.verdict.defects}` : '-',
    head ? `${branch ?? '(detached)'}@${head.slice(0, 7)}` : branch ? `${branch}@-` : '-',
    ahead === undefined ? '-' : String(ahead),
    dirty === undefined ? '-' : dirty ? 'yes' : 'no',
    dash(v.model),
    v.cost ? costText(v.cost) : '-',
  ]
}
