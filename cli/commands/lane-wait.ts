import { SvcError } from '../../kernel/domain/errors.js'
import { reportExitCode } from '../../kernel/domain/report-rules.js'
import { WAIT_EXIT } from '../../kernel/domain/wait-pick.js'
import { json, line } from '../format.js'
import type { Run } from '../table.js'

/** Each request to the kernel waits at most this long; the CLI asks again until its own timeout. */
const POLL_MS = 25_000

export const run: Run = async (port, args, io) => {
  const lane = args._[0]
  const run = args.run === undefined ? undefined : String(args.run)
  const parent = args.parent === undefined ? undefined : String(args.parent)
  if ([lane, run, parent].filter((x) => x !== undefined).length !== 1) throw new SvcError('usage', 'wait takes exactly one of <lane>, --run <key> or --parent <conv>')
  let timeoutMs = Infinity
  if (args.timeout !== undefined) {
    const t = Number(args.timeout)
    if (!/^\d+(\.\d+)?$/.test(String(args.timeout)) || !Number.isFinite(t)) throw new SvcError('usage', `--timeout must be a number of seconds, not '${args.timeout}'`)
    timeoutMs = t * 1000
  }
  const form = lane !== undefined ? `svc lane wait ${lane}` : run !== undefined ? `svc lane wait --run ${run}` : `svc lane wait --parent ${parent}`
  const next = (cursor: string | undefined) => io.err(line(`next: ${form}${cursor ? ` --after ${cursor}` : ''}`))
  const after = args.after === undefined ? undefined : String(args.after)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await port.laneWait({ lane, run, parent, after, timeoutMs: Math.max(0, Math.min(POLL_MS, deadline - Date.now())) })
    if (r.kind === 'report') {
      if (args.json) io.out(json(r))
      else io.out(r.report.body.endsWith('\n') ? r.report.body : r.report.body + '\n')
      const verdict = r.report.verdict ? ` ${r.report.verdict} (${r.report.defects} defects)` : ''
      io.err(line(`report #${r.report.seq} ${r.report.status}${verdict} from ${r.lane.run}/${r.lane.key} ${r.lane.role} i${r.lane.iteration} (conv ${r.lane.id})`))
      next(r.cursor)
      return reportExitCode(r.report.status)
    }
    if (r.kind === 'exited' || r.kind === 'idle') {
      if (args.json) io.out(json(r))
      io.err(line(`svc: ${r.detail}`))
      next(r.cursor)
      return WAIT_EXIT.noReport
    }
    if (Date.now() >= deadline) {
      if (args.json) io.out(json({ kind: 'timeout', cursor: after }))
      io.err(line(`svc: timed out after ${args.timeout} s; still running`))
      next(after)
      return WAIT_EXIT.timeout
    }
  }
}
