import { resolve } from 'node:path'
import { SvcError } from '../../kernel/domain/errors.js'
import { REPORT_STATUSES } from '../../kernel/domain/keys.js'
import { reportExitCode } from '../../kernel/domain/report-rules.js'
import { json, line } from '../format.js'
import { readBounded } from '../read-input.js'
import { actingAs } from '../io.js'
import type { Run } from '../table.js'
import { oneOf } from './conv.js'

export const run: Run = async (port, args, io) => {
  if ((args.file === undefined) === (args.stdin === undefined)) throw new SvcError('usage', 'give exactly one of --file <path> or --stdin')
  const status = oneOf(args, 'status', REPORT_STATUSES)
  let defects: number | undefined
  if (args.defects !== undefined) {
    if (!/^\d{1,9}$/.test(String(args.defects))) throw new SvcError('usage', `--defects must be a whole number, 0 or more, not '${args.defects}'`)
    defects = Number(args.defects)
  }
  const body = args.file !== undefined ? readBounded(io.cwd, String(args.file), 'report') : await io.readStdin()
  const verdictPath = args['verdict-file'] === undefined ? undefined : resolve(io.cwd, String(args['verdict-file']))
  const r = await port.laneReport({
    ...actingAs(io),
    body,
    status,
    allowUnpushed: args['allow-unpushed'] ? true : undefined,
    verdict: args.verdict === undefined ? undefined : String(args.verdict),
    defects,
    verdictFile: verdictPath ? { path: verdictPath, text: readBounded(io.cwd, verdictPath, 'verdict file') } : undefined,
  })
  const lane = r.lane.lane!
  const verdict = r.report.verdict ? ` ${r.report.verdict} (${r.report.defects} defects)` : ''
  io.out(args.json ? json(r) : line(`report #${r.report.seq} filed: ${lane.run}/${lane.key} ${lane.role} i${lane.iteration} ${r.report.status}${verdict}`))
  return reportExitCode(r.report.status)
}
