import { costText } from './format.js'

/** SPEC.md 4.1 list: the columns, in order. */
export const LIST_COLUMNS = ['ID', 'RUN/KEY', 'ROLE', 'ITER', 'ACTIVITY', 'REPORT', 'FOR', 'VERDICT', 'BRANCH@SHA', 'AHEAD', 'DIRTY', 'MODEL', 'COST'] as const

export interface ListRowFacts {
  id: string
  run: string
  key: string
  role: string
  iteration: number
  activity: string
  archived: boolean
  report?: { status: string }
  for?: string
  verdict?: { value: string; defects: number }
  branch?: string
  head?: string
  ahead?: number
  dirty?: boolean
  model?: string
  cost?: { usd: number; estimated: boolean }
}

/** A lane as the API answers it (the fields of LaneView the cells are made from). */
export type LaneCellsInput = Omit<ListRowFacts, 'for' | 'head' | 'ahead' | 'dirty'> & {
  for?: { key: string; iteration: number }
  git?: { branch?: string; head?: string; ahead?: number; dirty: boolean }
}

/** The cells of a lane's row, for the CLI's list and the deck alike (the deck's browser bundle imports this very
 * module), so each rule is written once. */
export function laneCells(v: LaneCellsInput): string[] {
  return listCells({
    id: v.id,
    run: v.run,
    key: v.key,
    role: v.role,
    iteration: v.iteration,
    activity: v.activity,
    archived: v.archived,
    report: v.report,
    for: v.for ? `${v.for.key} i${v.for.iteration}` : undefined,
    verdict: v.verdict,
    branch: v.git ? v.git.branch : v.branch,
    head: v.git?.head,
    ahead: v.git?.ahead,
    dirty: v.git?.dirty,
    model: v.model,
    cost: v.cost,
  })
}

/** The cells of one row: `-` where a fact does not apply or is unknown. */
export function listCells(r: ListRowFacts): string[] {
  const dash = (v: string | undefined) => v ?? '-'
  return [
    r.id,
    `${r.run}/${r.key}`,
    r.role,
    `i${r.iteration}`,
    r.archived ? 'archived' : r.activity,
    dash(r.report?.status),
    dash(r.for),
    r.verdict ? `${r.verdict.value} ${r.verdict.defects}` : '-',
    r.head ? `${r.branch ?? '(detached)'}@${r.head.slice(0, 7)}` : r.branch ? `${r.branch}@-` : '-',
    r.ahead === undefined ? '-' : String(r.ahead),
    r.dirty === undefined ? '-' : r.dirty ? 'yes' : 'no',
    dash(r.model),
    r.cost ? costText(r.cost) : '-',
  ]
}
