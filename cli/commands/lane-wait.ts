import { SvcError } from '../../kernel/domain/errors.js'
import { reportExitCode } from '../../kernel/domain/report-rules.js'
import { WAIT_EXIT } from '../../kernel/domain/wait.js'
import { json, line } from '../format.js'
import type { KernelPort } from '../../kernel/port/port.js'
import type { Io } from '../io.js'
import type { Args, Run } from '../verbs.js'
import { oneWaitForm } from '../../kernel/domain/wait.js'
import { decided } from '../../kernel/services/decided.js'

/** Each request to the kernel waits at most this long; the CLI asks again until its own timeout. */
const POLL_MS = 25_000

/** The set a wait watches besides one lane or worker: `--run` for lanes; for workers `--issue`, and `--project`
 * for a local: or # issue. Each verb reads its own options, so its help lists exactly what it reads. */
interface WaitSetArgs {
  set: string | undefined
  project?: string
}

/** `svc lane wait` (a lane, --run, --parent) and `svc worker wait` (a worker, --issue, --parent): the same loop,
 * output, cursor and exit codes. */
async function waitFor(
  kind: 'lane' | 'worker',
  { set: run, project }: WaitSetArgs,
  port: KernelPort,
  args: Args<'lane wait'> | Args<'worker wait'>,
  io: Io,
): Promise<number> {
  const lane = kind === 'lane' ? (args as Args<'lane wait'>).lane : (args as Args<'worker wait'>).worker
  const setFlag = kind === 'lane' ? 'run' : 'issue'
  const parent = args.parent
  decided(oneWaitForm([lane, run, parent], kind))
  let timeoutMs = Infinity
  if (args.timeout !== undefined) {
    const t = Number(args.timeout)
    if (!/^\d+(\.\d+)?$/.test(args.timeout) || !Number.isFinite(t))
      throw new SvcError('usage', `--timeout must be a number of seconds, not '${args.timeout}'`)
    timeoutMs = t * 1000
  }
  const form =
    lane !== undefined
      ? `svc ${kind} wait ${lane}`
      : run !== undefined
        ? `svc ${kind} wait --${setFlag} ${run}`
        : `svc ${kind} wait --parent ${parent}`
  const next = (cursor: string | undefined) => io.err(line(`next: ${form}${cursor ? ` --after ${cursor}` : ''}`))
  const after = args.after
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const pollMs = Math.max(0, Math.min(POLL_MS, deadline - Date.now()))
    const r = await (kind === 'lane'
      ? port.laneWait({ lane, run, parent, after, timeoutMs: pollMs })
      : port.workerWait({
          worker: lane,
          issue: run,
          parent,
          after,
          timeoutMs: pollMs,
          ...(project === undefined ? {} : { project }),
          cwd: io.cwd,
        }))
    if (r.kind === 'report') {
      if (args.json) io.out(json(r))
      else io.out(r.report.body.endsWith('\n') ? r.report.body : r.report.body + '\n')
      const verdict = r.report.verdict ? ` ${r.report.verdict} (${r.report.defects} defects)` : ''
      const from = 'issue' in r.lane ? `worker ${r.lane.issue}` : `${r.lane.run}/${r.lane.key} ${r.lane.role}`
      io.err(
        line(
          `report #${r.report.seq} ${r.report.status}${verdict} from ${from} i${r.lane.iteration} (conv ${r.lane.id})`,
        ),
      )
      next(r.cursor)
      return reportExitCode(r.report.status)
    }
    if (r.kind === 'exited' || r.kind === 'idle') {
      if (args.json) io.out(json(r))
      io.err(line(`svc: ${r.detail}`))
      // What gets the lanes going again (a message, then the same wait; a respawn), not the same wait alone.
      const steps = r.next ?? []
      const again = `${form}${r.cursor ? ` --after ${r.cursor}` : ''}`
      for (const step of steps) io.err(line(`next: ${step.startsWith('svc tell ') ? `${step} && ${again}` : step}`))
      if (!steps.length) next(r.cursor)
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

export const run: Run<'lane wait'> = (port, args, io) => waitFor('lane', { set: args.run }, port, args, io)

export const workerWait: Run<'worker wait'> = (port, args, io) =>
  waitFor('worker', { set: args.issue, project: args.project }, port, args, io)
