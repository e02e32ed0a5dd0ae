import { mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SvcError } from '../../kernel/domain/errors.js'
import { serviceHome } from '../../kernel/io/home.js'
import type { Io } from '../io.js'

/** The options of a report command that a resend repeats. */
type ReportOptions = {
  status?: string
  verdict?: string
  defects?: string | number
  'verdict-file'?: string
  'allow-unpushed'?: boolean
}

/** A report the kernel could not be given is not lost: its text is written where the lane can read it (the service
 * home, else the temporary directory), and the error says where and the command that sends it again. */
export function keepUnsentReport(
  io: Io,
  args: ReportOptions,
  kind: 'lane' | 'worker',
  body: string,
  e: SvcError,
): SvcError {
  const name = `report-${Date.now()}-${process.pid}.md`
  const dirs = [join(serviceHome(io.env).dir, 'unsent'), tmpdir()]
  for (const dir of dirs) {
    const path = join(dir, name)
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      writeFileSync(path, body, { mode: 0o600, flag: 'wx' })
    } catch {
      continue
    }
    return new SvcError(
      e.code,
      `${e.message}; the report was not filed and is kept in ${path}`,
      `${e.hint ? `${e.hint}; then ` : ''}send it again: ${resendCommand(args, kind, path)}`,
    )
  }
  return e
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** The same report command, reading the kept file. */
function resendCommand(args: ReportOptions, kind: string, path: string): string {
  const words = ['svc', kind, 'report', '--file', path]
  const given: [string, unknown][] = [
    ['status', args.status],
    ['verdict', args.verdict],
    ['defects', args.defects],
    ['verdict-file', args['verdict-file']],
  ]
  for (const [flag, value] of given) if (value !== undefined) words.push(`--${flag}`, String(value))
  if (args['allow-unpushed']) words.push('--allow-unpushed')
  return words.map(quote).join(' ')
}
