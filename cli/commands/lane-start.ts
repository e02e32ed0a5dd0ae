import { SvcError } from '../../kernel/domain/errors.js'
import { EFFORTS, HARNESSES, ROLES } from '../../kernel/domain/keys.js'
import { json, line } from '../format.js'
import { actingAs } from '../io.js'
import { withProgress } from '../progress.js'
import { readBounded } from '../read-input.js'
import type { Run } from '../table.js'
import { oneOf } from './conv.js'

const str = (v: unknown) => (v === undefined ? undefined : String(v))

export const run: Run = async (port, args, io) => {
  const role = oneOf(args, 'role', ROLES)
  if (!role) throw new SvcError('usage', '--role is required: one of builder, critic, verifier, play, orchestrator')
  const brief = args.brief === undefined ? undefined : readBounded(io.cwd, String(args.brief), 'brief')
  const request = port.laneStart({
    key: str(args.key),
    for: str(args.for),
    role,
    brief,
    prompt: str(args.prompt),
    run: str(args.run),
    parent: str(args.parent),
    project: str(args.project),
    model: str(args.model),
    harness: oneOf(args, 'harness', HARNESSES),
    effort: oneOf(args, 'effort', EFFORTS),
    title: str(args.title),
    branch: str(args.branch),
    from: str(args.from),
    at: str(args.at),
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
