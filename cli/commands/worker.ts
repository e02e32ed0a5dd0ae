import { activityShown } from '../../kernel/domain/list-show.js'
import { EFFORTS, HARNESSES } from '../../kernel/domain/keys.js'
import type { WorkerView } from '../../kernel/port/port.js'
import { json, line, textTable } from '../format.js'
import { actingAs, oneOf } from '../io.js'
import { withProgress } from '../progress.js'
import { readBounded } from '../read-input.js'
import type { Run } from '../verbs.js'
import { printReap } from './lane-views.js'

const flag = (v: unknown) => (v ? true : undefined)

export const run: Run<'worker run'> = async (port, args, io) => {
  const brief = args.brief === undefined ? undefined : readBounded(io.cwd, args.brief, 'brief')
  const request = port.workerRun({
    issue: args.issue,
    brief,
    prompt: args.prompt,
    project: args.project,
    harness: oneOf(args, 'harness', HARNESSES),
    model: args.model,
    effort: oneOf(args, 'effort', EFFORTS),
    from: args.from,
    branch: args.branch,
    title: args.title,
    replace: flag(args.replace),
    reuse: flag(args.reuse),
    post: flag(args.post),
    allowClosed: flag(args['allow-closed']),
    noWait: flag(args['no-wait']),
    ...actingAs(io),
    cwd: io.cwd,
  })
  const r = await withProgress(io, 'waiting for the worker to start', request)
  io.out(args.json ? json(r) : line(r.line))
  return 0
}

const COLUMNS = ['ID', 'NAME', 'ISSUE', 'ITER', 'ACTIVITY', 'REPORT', 'STARTER', 'DIR']
const cells = (v: WorkerView) => [
  v.id,
  v.name,
  v.issue,
  `i${v.iteration}`,
  activityShown(v),
  v.report ? `#${v.report.seq} ${v.report.status}` : '-',
  v.starter,
  v.cwd,
]

export const list: Run<'worker list'> = async (port, args, io) => {
  const views = await port.workerList({
    issue: args.issue,
    parent: args.parent,
    project: args.project,
    cwd: io.cwd,
  })
  io.out(args.json ? json(views) : textTable(COLUMNS, views.map(cells)))
  return 0
}

export const show: Run<'worker show'> = async (port, args, io) => {
  const v = await port.workerGet({ worker: args.worker })
  io.out(args.json ? json(v) : textTable(COLUMNS, [cells(v)]))
  return 0
}

export const stop: Run<'worker stop'> = async (port, args, io) => {
  const v = await port.workerStop({ worker: args.worker })
  io.out(args.json ? json(v) : line(`Worker ${v.issue} i${v.iteration} stopped: conv ${v.id} (${v.name})`))
  return 0
}

export const reap: Run<'worker reap'> = async (port, args, io) => {
  const r = await port.workerReap({ worker: args.worker, park: flag(args.park), keep: flag(args.keep) })
  const v = r.worker
  return printReap(io, args, r, { who: `worker ${v.issue} i${v.iteration}`, id: v.id, branch: v.branch })
}
