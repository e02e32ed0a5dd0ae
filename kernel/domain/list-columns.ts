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
    r.cost ? `${r.cost.estimated ? '~' : ''}$${r.cost.usd.toFixed(2)}` : '-',
  ]
}
