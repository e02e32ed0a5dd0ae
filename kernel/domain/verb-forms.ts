import { parseCursor, type Cursor } from './cursor.js'
import { keysFit } from './keys.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'

/** The argument forms of `wait` and `show` (lane and worker alike): which of their forms a request takes. */

/** The forms of `svc lane wait` and `svc worker wait`, in the order their values are given to oneWaitForm. */
export const WAIT_FORMS = { lane: '<lane>, --run <key> or --parent <conv>', worker: '<worker>, --issue <ref> or --parent <conv>' } as const

/** SPEC.md 4.1 wait: a wait watches exactly one of its forms (`given`: the value of each, absent when not given). */
export const oneWaitForm = (given: readonly unknown[], unit: keyof typeof WAIT_FORMS): Decision =>
  given.filter((x) => x !== undefined).length === 1 ? ALLOWED : refuse('usage', `wait takes exactly one of ${WAIT_FORMS[unit]}`)

/** SPEC.md 4.1 wait: waiting on one lane or worker, --after is a report sequence number (none: from the start). */
export const afterSeq = (after: string | undefined, kind: 'lane' | 'worker'): Decision<{ seq: number }> =>
  after === undefined ? allow({ seq: 0 }) : /^\d{1,9}$/.test(after) ? allow({ seq: Number(after) }) : refuse('usage', `--after for one ${kind} is a report sequence number, not '${after}'`)

/** SPEC.md 4.1 wait: waiting on a set, --after is a cursor over (time, name, seq). */
export function afterCursor(after: string | undefined): Decision<{ cursor: Cursor | undefined }> {
  if (after === undefined) return allow({ cursor: undefined })
  const cursor = parseCursor(after)
  return cursor ? allow({ cursor }) : refuse('usage', `--after '${after}' is not a cursor of the form <atMs>.<name>.<seq>`)
}

/** SPEC.md 4.1 show: a lane, or --run with --key (keys a lane could have), not both. */
export function showForm(input: { lane?: string; run?: string; key?: string }): Decision<{ lane: string } | { run: string; key: string }> {
  const { lane, run, key } = input
  if (lane !== undefined) return run !== undefined || key !== undefined ? refuse('usage', 'show takes a lane, or --run with --key, not both') : allow({ lane })
  if (run === undefined || key === undefined) return refuse('usage', 'show takes a lane, or --run with --key')
  const fit = keysFit({ run, key })
  return fit.ok ? allow({ run, key }) : fit
}
