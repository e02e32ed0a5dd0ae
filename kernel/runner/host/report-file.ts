import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HostEventBody, ReportFacts } from '../../domain/host-stream.js'
import { writeFileAtomicSync } from '../../io/atomic-file.js'
import { runnerPaths, runnerRunning } from './files.js'

/** A report file in a lane's outbox: its status on the first line and its body after it (a shell writes one as
 * easily as Node). `svc lane report` adds, after a tab on the first line, what the kernel checks a report against
 * (domain/host-stream.ts: ReportFacts). Files are named by the time of filing in microseconds, so the runner sends a
 * lane's reports in the order they were filed. */
export const REPORT_SUFFIX = '.report'

/** The report event of the file `file`, filed under `id`; throws what is wrong with it. */
export function readReportFile(file: string, id: string): Extract<HostEventBody, { kind: 'report' }> {
  const text = readFileSync(file, 'utf8')
  const cut = text.indexOf('\n')
  const [word, factsText] = (cut < 0 ? text : text.slice(0, cut)).split('\t', 2)
  const status = word.trim()
  if (status !== 'done' && status !== 'blocked' && status !== 'failed') throw new Error(`status ${status}`)
  return {
    kind: 'report',
    id,
    status,
    body: cut < 0 ? '' : text.slice(cut + 1),
    ...(factsText ? { facts: JSON.parse(factsText) as ReportFacts } : {}),
  }
}

/** The lane's `svc lane report` on a host: the report is written whole (by rename) into the lane's outbox as its
 * status line and its body, and the runner is woken to send it home. A shell can do the same: see REPORT_SHELL. */
export function fileReport(outbox: string, status: string, body: string, facts?: ReportFacts): void {
  const name = `${(Date.now() * 1000).toString().padStart(16, '0')}-${process.pid}${REPORT_SUFFIX}`
  writeFileAtomicSync(join(outbox, name), `${status}${facts ? `\t${JSON.stringify(facts)}` : ''}\n${body}`)
  // Only the runner itself: a process that took the pid of a dead one is not signalled.
  const runner = runnerRunning(runnerPaths(join(outbox, '..', '..', '..')))
  if (runner)
    try {
      process.kill(runner, 'SIGUSR1')
    } catch {} // no runner now: the next one finds the report in the outbox
}

/** A report filed from a lane's shell with no Node start: status as $1, body on stdin. Named by the time of filing in
 * microseconds (as `fileReport` names one), so the runner sends a lane's reports in order and the time home is known.
 * Every step but the copy of the body and the rename is a shell builtin: on a busy host each program started costs
 * milliseconds before the report leaves. The runner is woken only if the process with its pid has its start time
 * (field 22 of /proc/<pid>/stat, the 20th after the command's closing parenthesis); otherwise its next look finds
 * the report. */
export const REPORT_SHELL =
  't=${EPOCHREALTIME/[.,]/}; f="$SERVICE_HOST_OUTBOX/$t-$$"; { echo "$1"; cat; } > "$f.tmp" && mv "$f.tmp" ' +
  '"$f.report" && ' +
  '{ r="$SERVICE_HOST_OUTBOX/../../../runner"; read -r p < "$r.pid" && read -r s < "$r.pid-start" && ' +
  'read -r st < "/proc/$p/stat" && set -- ${st##*) } && [ "${20}" = "$s" ] && kill -USR1 "$p"; } 2>/dev/null; true'
