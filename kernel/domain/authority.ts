import type { ConversationRecord } from './conversation.js'
import { conversationKind } from './conversation.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'

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
