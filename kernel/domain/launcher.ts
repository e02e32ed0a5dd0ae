import { conversationKind, type ConversationRecord } from './conversation.js'
import type { Role } from './keys.js'

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

/** True when the conversation is a lane or descends from one through successor links (SPEC.md 4.1 report rule 6). */
export function isWithinLane(id: string, lookup: Lookup): boolean {
  const eff = effectiveLauncher(id, lookup)
  return eff !== undefined && conversationKind(eff) === 'lane'
}

/** SPEC.md section 5: who may launch each role. `launcher` is the effective launcher. */
export function mayLaunch(launcher: Pick<ConversationRecord, 'lane' | 'successor' | 'worker'>, role: Role): { ok: true } | { ok: false; reason: string } {
  if (launcher.worker) return { ok: false, reason: 'a worker cannot launch lanes' }
  const launcherRole = launcher.lane?.role
  if (!launcherRole) return { ok: true }
  if (launcherRole === 'builder' || launcherRole === 'critic' || launcherRole === 'verifier')
    return { ok: false, reason: `a ${launcherRole} lane cannot launch lanes` }
  if (launcherRole === 'play') return { ok: false, reason: `a play lane cannot launch lanes` }
  const allowed: readonly Role[] = ['builder', 'verifier', 'play']
  return allowed.includes(role)
    ? { ok: true }
    : { ok: false, reason: `an orchestrator lane cannot launch ${role === 'orchestrator' ? 'an' : 'a'} ${role} lane; only a root conversation can` }
}
