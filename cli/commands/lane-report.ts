import { resolve } from 'node:path'
import { SvcError } from '../../kernel/domain/errors.js'
import { REPORT_STATUSES } from '../../kernel/domain/keys.js'
import { reportExitCode } from '../../kernel/domain/report-rules.js'
import { json, line } from '../format.js'
import { readBounded } from '../read-input.js'
import { actingAs, oneOf } from '../io.js'
import type { Run } from '../verbs.js'
import { keepUnsentReport } from './report-kept.js'
import type { ConvView } from '../../kernel/port/port.js'

/** `svc lane report` and `svc worker report`: the same options, the same exit codes. */
export const reportAs =
  (kind: 'lane' | 'worker'): Run<'lane report' | 'worker report'> =>
  async (port, args, io) => {
    if ((args.file === undefined) === (args.stdin === undefined))
      throw new SvcError('usage', 'give exactly one of --file <path> or --stdin')
    const status = oneOf(args, 'status', REPORT_STATUSES)
    let defects: number | undefined
    if (args.defects !== undefined) {
      if (!/^\d{1,9}$/.test(String(args.defects)))
        throw new SvcError('usage', `--defects must be a whole number, 0 or more, not '${args.defects}'`)
      defects = Number(args.defects)
    }
    const body = args.file !== undefined ? readBounded(io.cwd, args.file, 'report') : await io.readStdin()
    const verdictPath = args['verdict-file'] === undefined ? undefined : resolve(io.cwd, args['verdict-file'])
    const send = kind === 'lane' ? port.laneReport : port.workerReport
    const r = await send({
      ...actingAs(io),
      body,
      status,
      allowUnpushed: args['allow-unpushed'] ? true : undefined,
      verdict: args.verdict,
      defects,
      verdictFile: verdictPath
        ? { path: verdictPath, text: readBounded(io.cwd, verdictPath, 'verdict file') }
        : undefined,
    }).catch((e) => {
      // The kernel could not be reached or stopped answering: what the lane wrote must not be lost with the call.
      throw e instanceof SvcError && e.code === 'unavailable' ? keepUnsentReport(io, args, kind, body, e) : e
    })
    const view = 'lane' in r ? r.lane : r.worker
    const verdict = r.report.verdict ? ` ${r.report.verdict} (${r.report.defects} defects)` : ''
    io.out(args.json ? json(r) : line(`report #${r.report.seq} filed: ${who(view)} ${r.report.status}${verdict}`))
    return reportExitCode(r.report.status)
  }

export const run = reportAs('lane')

/** A lane as `<run>/<key> <role> i<n>`, a worker as `worker <issue> i<n>`. */
export const who = (v: Pick<ConvView, 'lane' | 'worker'>) =>
  v.lane
    ? `${v.lane.run}/${v.lane.key} ${v.lane.role} i${v.lane.iteration}`
    : `worker ${v.worker!.issue} i${v.worker!.iteration}`
