import { SvcError } from '../../kernel/domain/errors.js'
import type { DoctorCheck } from '../../kernel/domain/doctor.js'
import { json, line } from '../format.js'
import type { Run } from '../verbs.js'

const label = (c: DoctorCheck) => (!c.ok ? 'PROBLEM' : c.note ? 'note   ' : 'ok     ')
const checkLines = (c: DoctorCheck) =>
  line(`${label(c)}  ${c.name}: ${c.detail}`) + (c.fix ? line(`         fix: ${c.fix}`) : '')

/** `svc doctor`: the kernel answering, harness CLIs and their versions, git and lsof, writable homes and lanes roots.
 * Exit 1 when anything is a problem. */
export const run: Run<'doctor'> = async (port, args, io) => {
  let report
  try {
    report = await port.doctor({})
  } catch (e) {
    if (!(e instanceof SvcError) || e.code !== 'unavailable') throw e
    const checks: DoctorCheck[] = [
      {
        name: 'kernel',
        ok: false,
        detail: e.message,
        fix: e.hint ?? 'svc kernel start; its log is kernel.log in the service home',
      },
    ]
    report = { checks, problems: 1 }
  }
  io.out(args.json ? json(report) : report.checks.map(checkLines).join(''))
  if (!report.problems) return 0
  io.err(`svc: doctor found ${report.problems} problem${report.problems === 1 ? '' : 's'}\n`)
  return 1
}
