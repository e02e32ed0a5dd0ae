import type { ConversationRecord } from './conversation.js'
import { conversationKind } from './conversation.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'
import { effectiveLauncher } from './launch.js'

/** Who is asking, as the kernel verified it: the person (a shell no conversation's process tree holds, or the deck's
 * session), or the conversation whose process tree the calling process belongs to. */
export type Caller = { kind: 'person' } | { kind: 'conversation'; id: string }

export const PERSON: Caller = { kind: 'person' }

type Row = Pick<ConversationRecord, 'id' | 'parent' | 'successor' | 'lane'> & { worker?: unknown }
type Lookup = (id: string) => Row | undefined

/** The conversations whose standing `id` has: itself and, while it is a successor, the conversations it continues
 * (SPEC.md 5: a handed-off orchestrator keeps the standing of the original). */
export function standingOf(id: string, lookup: Lookup): Set<string> {
  const standing = new Set<string>([id])
  let row = lookup(id)
  while (row && conversationKind(row) === 'successor' && row.parent && !standing.has(row.parent)) {
    standing.add(row.parent)
    row = lookup(row.parent)
  }
  return standing
}

/** The launcher chain of a conversation: its parent, that one's parent, and so on up to a root. */
export function launcherChain(id: string, lookup: Lookup): string[] {
  const chain: string[] = []
  let parent = lookup(id)?.parent
  while (parent && !chain.includes(parent) && parent !== id) {
    chain.push(parent)
    parent = lookup(parent)?.parent
  }
  return chain
}

/** SPEC.md 5: stop, reap, tell and answer of a conversation belong to the person and to its launcher chain (a
 * conversation may also act on itself). A sibling, a child or any other conversation is refused. */
export function mayCommand(f: { what: string; target: string; caller: Caller; lookup: Lookup }): Decision {
  if (f.caller.kind === 'person') return ALLOWED
  const standing = standingOf(f.caller.id, f.lookup)
  if (standing.has(f.target) || launcherChain(f.target, f.lookup).some((id) => standing.has(id))) return ALLOWED
  return refuse(
    'forbidden',
    `refused: ${f.what}: conv ${f.caller.id} is not in the launcher chain of conv ${f.target}`,
    `only the person or the conversations that launched conv ${f.target} may do this`,
  )
}

/** What is the person's own and no lane's: the service itself (stopping the kernel) and where lanes may run (the
 * hosts it may reach). The person, and a root conversation or its successor (the person's agent, which may launch
 * anything), may; a lane or a worker, and their successors, may not: what they may change is their own lane. */
export function mayAdminister(f: { what: string; caller: Caller; lookup: Lookup }): Decision {
  if (f.caller.kind === 'person') return ALLOWED
  const eff = effectiveLauncher(f.caller.id, f.lookup)
  if (eff && !eff.lane && !eff.worker) return ALLOWED
  const kind = !eff
    ? 'has a broken chain of parent links'
    : eff.lane
      ? `${eff.lane.role === 'orchestrator' ? 'an' : 'a'} ${eff.lane.role} lane`
      : 'a worker'
  const is = !eff ? kind : eff.id === f.caller.id ? `is ${kind}` : `continues conv ${eff.id}, ${kind}`
  return refuse(
    'forbidden',
    `refused: ${f.what}: conv ${f.caller.id} ${is}; only the person or a root conversation may do this`,
    'run it from your own shell, outside any lane',
  )
}
