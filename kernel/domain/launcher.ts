import { conversationKind, type ConversationRecord } from './conversation.js'
import type { Role } from './keys.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'

type Lookup = (id: string) => ConversationRecord | undefined

/** SPEC.md glossary: the launching conversation, or, if that is a successor, the row reached by following parent
 * links until a lane or a root is met. A broken or cyclic chain yields undefined. */
export function effectiveLauncher(id: string, lookup: Lookup): ConversationRecord | undefined {
  const seen = new Set<string>()
  let row = lookup(id)
  while (row && conversationKind(row) === 'successor') {
    if (seen.has(row.id) || !row.parent) return undefined
    seen.add(row.id)
    row = lookup(row.parent)
  }
  return row
}

/** SPEC.md section 5 and 4.1 launch rules 1-2: who may launch each role. `launcher` is the effective launcher. A
 * worker launches no lanes. */
export function mayLaunch(launcher: Pick<ConversationRecord, 'lane' | 'successor' | 'worker'>, role: Role): Decision {
  if (launcher.worker) return refuse('forbidden', 'refused: a worker cannot launch lanes')
  const launcherRole = launcher.lane?.role
  if (!launcherRole) return ALLOWED
  if (launcherRole !== 'orchestrator') return refuse('forbidden', `refused: a ${launcherRole} lane cannot launch lanes`)
  const allowed: readonly Role[] = ['builder', 'verifier', 'play']
  return allowed.includes(role)
    ? ALLOWED
    : refuse('forbidden', `refused: an orchestrator lane cannot launch ${role === 'orchestrator' ? 'an' : 'a'} ${role} lane; only a root conversation can`)
}
