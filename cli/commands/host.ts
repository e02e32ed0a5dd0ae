import { SvcError } from '../../kernel/domain/errors.js'
import type { HostView } from '../../kernel/domain/hosts.js'
import { givenUpLine, hostFactsText, runnerText } from '../../kernel/domain/hosts.js'
import { json, line, textTable } from '../format.js'
import type { Run } from '../verbs.js'

const keyText = (h: HostView) => h.hostKey ?? 'no key recorded'

/** What a host answered, or its problem with the fix. */
const answerLines = (h: HostView) =>
  h.problem
    ? line(`unreachable: ${h.problem.message}`) + (h.problem.hint ? line(`fix: ${h.problem.hint}`) : '')
    : h.facts
      ? line(`answers: ${hostFactsText(h.facts)}; home ${h.facts.home}`) +
        (h.facts.runner ? line(runnerText(h.facts.runner)) : '')
      : ''

const hostLines = (h: HostView) =>
  line(`host ${h.name}: ${h.ssh}`) +
  line(`lanes root: ${h.lanesRoot}`) +
  (h.identity ? line(`identity: ${h.identity}`) : '') +
  line(`host key: ${keyText(h)}`) +
  answerLines(h)

/** `svc host add <name> --ssh user@addr [--lanes-root <dir>] [--identity <key file>] [--host-key '<type> <base64>']`:
 * the host is reached once before it is written; its key is recorded then (or checked against --host-key). */
export const add: Run<'host add'> = async (port, args, io) => {
  const ssh = args.ssh
  if (ssh === undefined) throw new SvcError('usage', '--ssh is required: how to reach the host, as user@address')
  const h = await port.hostAdd({
    name: args.name,
    ssh,
    lanesRoot: args['lanes-root'],
    identity: args.identity,
    hostKey: args['host-key'],
  })
  io.out(args.json ? json(h) : line(`added host ${h.name} (${h.ssh}), host key ${keyText(h)}`) + answerLines(h))
  return 0
}

export const list: Run<'host list'> = async (port, args, io) => {
  const hosts = await port.hostList({})
  if (args.json) io.out(json(hosts))
  else if (!hosts.length) io.out(line('no hosts; add one with svc host add <name> --ssh user@address'))
  else
    io.out(
      textTable(
        ['HOST', 'SSH', 'LANES ROOT', 'HOST KEY'],
        hosts.map((h) => [h.name, h.ssh, h.lanesRoot, keyText(h)]),
      ),
    )
  return 0
}

/** `svc host show <name>`: the entry and what the host answers now; exit 1 when it does not. */
export const show: Run<'host show'> = async (port, args, io) => {
  const h = await port.hostShow({ name: args.name })
  io.out(args.json ? json(h) : hostLines(h))
  return h.problem ? 1 : 0
}

/** `svc host remove <name> [--forget-lanes]`: with --forget-lanes, the lanes whose worktrees it gave up on one line
 * (stderr), with what home holds of each. */
export const remove: Run<'host remove'> = async (port, args, io) => {
  const h = await port.hostRemove({ name: args.name, ...(args['forget-lanes'] ? { forgetLanes: true } : {}) })
  if (args.json) io.out(json(h))
  else {
    io.out(line(`removed host ${h.name} (${h.ssh}); its key is forgotten`))
    if (h.gaveUp) io.err(line(`warning: ${givenUpLine(h.name, h.gaveUp)}`))
  }
  return 0
}
