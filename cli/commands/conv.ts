import { SvcError } from '../../kernel/domain/errors.js'
import { EFFORTS, HARNESSES, NEEDS_YOU_REASONS, PHASES } from '../../kernel/domain/keys.js'
import type { ConvView } from '../../kernel/port/port.js'
import { printable } from '../../kernel/domain/printable.js'
import { activityShown } from '../../kernel/domain/list-show.js'
import { clockTime, usdText } from '../../kernel/domain/format.js'
import { age, json, line, textTable } from '../format.js'
import { actingAs, oneOf } from '../io.js'
import type { Run } from '../verbs.js'

const activityText = (v: ConvView) => v.activity + (v.reason ? ` (${v.reason})` : '')

function pendingText(p: NonNullable<ConvView['pending']>): string {
  const input = p.input === undefined ? '' : ` ${JSON.stringify(p.input)}`
  const text = `${p.kind}${p.tool ? ` (${p.tool})` : ''}${input}`
  return (text.length > 300 ? text.slice(0, 297) + '...' : text) + `; answer with svc conv answer`
}

function describe(v: ConvView): string {
  const rows: [string, string | undefined][] = [
    ['id', v.id],
    ['name', v.name],
    ['kind', v.kind + (v.successor ? ` (${v.successor})` : '')],
    ['parent', v.parent],
    ['project', v.project],
    ['harness', v.harness],
    ['model', v.model],
    ['cwd', v.cwd],
    [
      'activity',
      `${activityText(v)} (${v.evidence.source}${v.evidence.detail ? `: ${v.evidence.detail}` : ''}, ` +
        `${age(v.evidence.at)} ago)`,
    ],
    ['archived', v.archived ? 'yes' : undefined],
    ['waits on', v.pending ? pendingText(v.pending) : undefined],
    [
      'cost',
      v.cost
        ? `${usdText(v.cost.usd)}${v.cost.estimated ? ` (estimate${v.cost.basis ? ` from ${v.cost.basis}` : ''})` : ''}`
        : undefined,
    ],
    ['lane', v.lane ? `${v.lane.run}/${v.lane.key} ${v.lane.role} i${v.lane.iteration}` : undefined],
  ]
  return rows
    .filter(([, val]) => val !== undefined)
    .map(([k, val]) => line(`${k}: ${val}`))
    .join('')
}

export const convNew: Run<'conv new'> = async (port, args, io) => {
  const v = await port.convNew({
    project: args.project,
    harness: oneOf(args, 'harness', HARNESSES),
    model: args.model,
    effort: oneOf(args, 'effort', EFFORTS),
    cwd: args.project && !args.cwd ? undefined : resolveDir(args.cwd ?? io.cwd, io.cwd),
    prompt: args.prompt,
    name: args.name,
    title: args.title,
  })
  io.out(args.json ? json(v) : `${v.id}\n`)
  return 0
}

const resolveDir = (dir: string, cwd: string) => (dir.startsWith('/') ? dir : `${cwd}/${dir}`)

export const convList: Run<'conv list'> = async (port, args, io) => {
  const list = await port.convList({ all: Boolean(args.all) })
  if (args.json) io.out(json(list))
  else
    io.out(
      textTable(
        ['ID', 'NAME', 'KIND', 'PARENT', 'HARNESS', 'ACTIVITY', 'AGE'],
        list.map((v) => [v.id, v.name, v.kind, v.parent ?? '-', v.harness, activityShown(v), age(v.createdAt)]),
      ),
    )
  return 0
}

export const convShow: Run<'conv show'> = async (port, args, io) => {
  const v = await port.convShow({ conv: args.conv })
  io.out(args.json ? json(v) : describe(v))
  return 0
}

export const convStop: Run<'conv stop'> = async (port, args, io) => {
  const v = await port.convStop({ conv: args.conv })
  io.out(args.json ? json(v) : line(`conv ${v.id} (${v.name}) stopped`))
  return 0
}

export const convArchive: Run<'conv archive'> = async (port, args, io) => {
  const v = await port.convArchive({ conv: args.conv })
  io.out(args.json ? json(v) : line(`conv ${v.id} (${v.name}) archived`))
  return 0
}

/** The whole transcript, a page at a time from the start (a page is bounded, so is the memory it takes). */
export const convTranscript: Run<'conv transcript'> = async (port, args, io) => {
  let cursor = 0
  let first = true
  if (args.json) io.out('[')
  for (;;) {
    const page = await port.convTranscript({ conv: args.conv, cursor })
    for (const e of page.entries) {
      if (args.json) io.out(`${first ? '\n' : ',\n'}${JSON.stringify(e)}`)
      else io.out(`${clockTime(e.at)} ${printable(e.kind).padEnd(9)} ${printable(e.text, true)}\n`)
      first = false
    }
    if (!page.more || page.cursor === cursor) break
    cursor = page.cursor
  }
  if (args.json) io.out(first ? ']\n' : '\n]\n')
  return 0
}

export const convMark: Run<'conv mark'> = async (port, args, io) => {
  const phase = args.phase
  if (!(PHASES as readonly string[]).includes(phase))
    throw new SvcError('usage', `the state must be one of ${PHASES.join(', ')}, not '${phase}'`)
  const v = await port.convMark({
    ...actingAs(io),
    phase: phase as (typeof PHASES)[number],
    reason: oneOf(args, 'reason', NEEDS_YOU_REASONS),
  })
  io.out(args.json ? json(v) : line(`conv ${v.id} marked ${phase}${args.reason ? ` (${args.reason})` : ''}`))
  return 0
}

export const tell: Run<'tell'> = async (port, args, io) => {
  const r = await port.tell({ conv: args.conv, text: args.text, force: Boolean(args.force), ...actingAs(io) })
  io.out(args.json ? json(r) : line(`sent to conv ${r.conv.id} (${r.conv.name})`))
  return 0
}

const successor =
  (kind: 'handoff' | 'fork'): Run<'handoff' | 'fork'> =>
  async (port, args, io) => {
    const v = await port.successor({
      ...actingAs(io),
      kind,
      harness: oneOf(args, 'harness', HARNESSES),
      model: args.model,
      prompt: args.prompt,
    })
    io.out(args.json ? json(v) : `${v.id}\n`)
    return 0
  }
export const handoff = successor('handoff')
export const fork = successor('fork')
