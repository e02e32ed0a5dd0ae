import { SvcError } from '../../kernel/domain/errors.js'
import { json, line } from '../format.js'
import type { Run } from '../verbs.js'

const DECISIONS = ['allow', 'deny'] as const

/** `svc conv answer <conv> allow|deny [--message <text>]`: answer the permission, question or plan a harness waits
 * on. */
export const run: Run<'conv answer'> = async (port, args, io) => {
  const decision = args.decision
  if (!(DECISIONS as readonly string[]).includes(decision))
    throw new SvcError('usage', `the answer must be allow or deny, not '${decision}'`)
  const r = await port.convAnswer({
    conv: args.conv,
    decision: decision as (typeof DECISIONS)[number],
    ...(args.message !== undefined ? { message: args.message } : {}),
  })
  const what = `${r.answered.kind}${r.answered.tool ? `: ${r.answered.tool}` : ''}`
  io.out(args.json ? json(r) : line(`answered conv ${r.conv.id} (${r.conv.name}): ${r.answered.decision} (${what})`))
  return 0
}
