import { SvcError } from '../../kernel/domain/errors.js'
import { EFFORTS, HARNESSES, ROLES } from '../../kernel/domain/keys.js'
import { json, line } from '../format.js'
import { actingAs, oneOf, optionText } from '../io.js'
import { withProgress } from '../progress.js'
import { readBounded } from '../read-input.js'
import type { Run } from '../table.js'

export const run: Run = async (port, args, io) => {
  const role = oneOf(args, 'role', ROLES)
  if (!role) throw new SvcError('usage', '--role is required: one of builder, critic, verifier, play, orchestrator')
  const brief = args.brief === undefined ? undefined : readBounded(io.cwd, String(args.brief), 'brief')
  const request = port.laneStart({
    key: optionText(args, 'key'),
    for: optionText(args, 'for'),
    role,
    brief,
    prompt: optionText(args, 'prompt'),
    run: optionText(args, 'run'),
    parent: optionText(args, 'parent'),
    project: optionText(args, 'project'),
    model: optionText(args, 'model'),
    harness: oneOf(args, 'harness', HARNESSES),
    effort: oneOf(args, 'effort', EFFORTS),
    title: optionText(args, 'title'),
    branch: optionText(args, 'branch'),
    from: optionText(args, 'from'),
    at: optionText(args, 'at'),
    reuse: args.reuse ? true : undefined,
    replace: args.replace ? true : undefined,
    noWait: args['no-wait'] ? true : undefined,
    ...actingAs(io),
    cwd: io.cwd,
  })
  const r = await withProgress(io, 'waiting for the lane to start', request)
  io.out(args.json ? json(r) : line(r.line))
  return 0
}
