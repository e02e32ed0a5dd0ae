import { SvcError } from '../../kernel/domain/errors.js'
import { EFFORTS, HARNESSES, ROLES } from '../../kernel/domain/keys.js'
import { json, line } from '../format.js'
import { actingAs, oneOf } from '../io.js'
import { withProgress } from '../progress.js'
import { readBounded } from '../read-input.js'
import type { Run } from '../verbs.js'

export const run: Run<'lane start'> = async (port, args, io) => {
  const role = oneOf(args, 'role', ROLES)
  if (!role) throw new SvcError('usage', '--role is required: one of builder, critic, verifier, play, orchestrator')
  const brief = args.brief === undefined ? undefined : readBounded(io.cwd, args.brief, 'brief')
  const request = port.laneStart({
    key: args.key,
    for: args.for,
    role,
    brief,
    prompt: args.prompt,
    run: args.run,
    parent: args.parent,
    project: args.project,
    model: args.model,
    harness: oneOf(args, 'harness', HARNESSES),
    effort: oneOf(args, 'effort', EFFORTS),
    title: args.title,
    branch: args.branch,
    from: args.from,
    at: args.at,
    reuse: args.reuse ? true : undefined,
    replace: args.replace ? true : undefined,
    noWait: args['no-wait'] ? true : undefined,
    host: args.host,
    ...actingAs(io),
    cwd: io.cwd,
  })
  const r = await withProgress(io, 'waiting for the lane to start', request)
  io.out(args.json ? json(r) : line(r.line))
  return 0
}
