import { harnessWords } from '../../kernel/domain/activity.js'
import { listTable, showLine, stopLine } from '../../kernel/domain/list-show.js'
import { json, line, textTable } from '../format.js'
import type { ReapResult } from '../../kernel/port/port.js'
import type { Io } from '../io.js'
import type { Run } from '../verbs.js'

export const list: Run<'lane list'> = async (port, args, io) => {
  const views = await port.laneList({ run: args.run, parent: args.parent })
  const t = listTable(views)
  io.out(args.json ? json(views) : textTable(t.columns, t.rows))
  // What a harness said went wrong, one line per lane on stderr: the table keeps its columns, no failure stays hidden.
  if (!args.json)
    for (const v of views) {
      const words = v.archived ? undefined : harnessWords({ value: v.activity, reason: v.reason, evidence: v.evidence })
      if (words) io.err(`#${v.id} ${v.run}/${v.key} ${v.role} i${v.iteration}: ${words}\n`)
    }
  return 0
}

export const show: Run<'lane show'> = async (port, args, io) => {
  const lane = args.lane
  const r = await port.laneShow({ lane, run: args.run, key: args.key })
  io.out(args.json ? json(r) : [r.chain, ...r.lanes.map(showLine)].map(line).join(''))
  return 0
}

export const stop: Run<'lane stop'> = async (port, args, io) => {
  const v = await port.laneStop({ lane: args.lane })
  io.out(args.json ? json(v) : line(stopLine(v)))
  return 0
}

export const reap: Run<'lane reap'> = async (port, args, io) => {
  const r = await port.laneReap({
    lane: args.lane,
    park: args.park ? true : undefined,
    keep: args.keep ? true : undefined,
  })
  const v = r.lane
  return printReap(io, args, r, { who: `${v.run}/${v.key} ${v.role} i${v.iteration}`, id: v.id, branch: v.branch })
}

/** What a reap of a lane or a worker prints. */
export function printReap(
  io: Io,
  args: { json?: true },
  r: Omit<ReapResult, 'lane'>,
  v: { who: string; id: string; branch?: string },
): number {
  if (args.json) {
    io.out(json(r))
    return 0
  }
  for (const w of r.warnings) io.err(line(w))
  if (r.parked)
    io.out(
      line(
        `parked ${r.parked.paths} path${r.parked.paths === 1 ? '' : 's'} to ${r.parked.patch} (kept at ` +
          `${r.parked.ref})`,
      ),
    )
  io.out(
    line(
      `reaped ${v.who} (conv ${v.id})${r.removed ? `: removed ${r.removed}` : ''}` +
        `${r.held ? `, every byte held at ${r.held}` : ''}${v.branch ? `; branch ${v.branch} kept` : ''}`,
    ),
  )
  if (r.archiveError) io.out(line(r.archiveError))
  return 0
}
