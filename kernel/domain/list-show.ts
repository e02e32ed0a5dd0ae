import { costText } from './format.js'
import type { LaneCellsInput, LaneChainNow, LaneRef, LaneShown } from './lane.js'
import { keysFit } from './keys.js'
import { allow, refuse, type Decision } from './refusal.js'

/** SPEC.md 4.1 list: the columns, in order. */
export const LIST_COLUMNS = [
  'ID',
  'RUN/KEY',
  'ROLE',
  'ITER',
  'ACTIVITY',
  'REPORT',
  'FOR',
  'VERDICT',
  'BRANCH@SHA',
  'AHEAD',
  'DIRTY',
  'MODEL',
  'COST',
] as const

/** SPEC.md 4.1 list, its columns: the cells of a lane's row, for the CLI's list and the deck alike (the deck's browser
 * bundle imports this very module), so each rule is written once: `-` where a fact does not apply or is unknown. */
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

/** SPEC.md 4.1 list, and issue 27: the columns and rows of a list. A lane on another host names it in a last column,
 * HOST (`-` for a lane here), which a list with no such lane leaves out. */
export function listTable(views: readonly LaneCellsInput[]): { columns: string[]; rows: string[][] } {
  const hosts = views.some((v) => v.host !== undefined)
  return {
    columns: hosts ? [...LIST_COLUMNS, 'HOST'] : [...LIST_COLUMNS],
    rows: views.map((v) => (hosts ? [...laneCells(v), v.host ?? '-'] : laneCells(v))),
  }
}

/** SPEC.md 4.1 list and show: what a row shows for its activity; an archived one shows `archived`. Every table says
 * why: needs-you with its reason (`needs-you (permission)`), an idle lane whose turn ended with no report as
 * `idle (no report)`. */
export const activityShown = (v: {
  archived?: boolean
  activity: string
  reason?: string
  noReport?: boolean
}): string => (v.archived ? 'archived' : v.activity + (v.reason ? ` (${v.reason})` : v.noReport ? ' (no report)' : ''))

/** Who filed a report a wait returns: a lane, or a worker (role `worker`, known by its issue). */
export type ReportFrom = LaneRef | { id: string; name: string; role: 'worker'; iteration: number; issue: string }

/** SPEC.md 4.1 start, behaviour 5: `Lane <run>/<key> <role> i<n>: conv <id> (<name>) in <cwd>`. */
export const startLine = (l: LaneRef, cwd: string) =>
  `Lane ${l.run}/${l.key} ${l.role} i${l.iteration}: conv ${l.id} (${l.name}) in ${cwd}`

/** SPEC.md 4.1 stop: the line a stopped lane prints. */
export const stopLine = (l: LaneRef) =>
  `Lane ${l.run}/${l.key} ${l.role} i${l.iteration} stopped: conv ${l.id} (${l.name})`

/** SPEC.md 4.1 show: `#<id> <role> i<n> <activity> <verdict> <verdict file>`; an archived lane shows `archived`. */
export const showLine = (v: LaneShown) =>
  `#${v.id} ${v.role} i${v.iteration} ${activityShown(v)} ${v.verdict?.value ?? '-'} ${v.verdict?.file ?? '-'}`

/** SPEC.md 4.1 list, REPORT column: the newest report of a lane. */
export const newestReport = (info: LaneChainNow) => info.reports.at(-1)

/** SPEC.md 4.1 show: a lane, or --run with --key (keys a lane could have), not both. */
export function showForm(input: {
  lane?: string
  run?: string
  key?: string
}): Decision<{ lane: string } | { run: string; key: string }> {
  const { lane, run, key } = input
  if (lane !== undefined)
    return run !== undefined || key !== undefined
      ? refuse('usage', 'show takes a lane, or --run with --key, not both')
      : allow({ lane })
  if (run === undefined || key === undefined) return refuse('usage', 'show takes a lane, or --run with --key')
  const fit = keysFit({ run, key })
  return fit.ok ? allow({ run, key }) : fit
}
