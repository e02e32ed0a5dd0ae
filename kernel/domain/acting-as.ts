import { ALLOWED, refuse, type Decision } from './refusal.js'

/** The variable that carries a conversation's own key, beside SERVICE_CONVERSATION. */
export const KEY_VARIABLE = 'SERVICE_CONVERSATION_KEY'

/** What a request that acts as a conversation (report, launch, mark, tell as, successor) shows, as the kernel
 * found it: the conversation it names and whether that one has a key; the key it gives, as the conversation that
 * key belongs to (null: it belongs to none). */
export interface ActAsFacts {
  what: string
  named?: { id: string; hasKey: boolean }
  /** Absent: no key given. */
  keyOf?: string | null
}

/** Who may act as whom. A conversation the kernel drives has a key, and only a request giving that key acts as it;
 * a key acts as its own conversation only. A conversation with no key (one a human made with `--harness none`)
 * is acted as by its id alone, as long as no other conversation's key comes with the request. */
export function mayActAs(f: ActAsFacts): Decision {
  if (f.keyOf === null)
    return refused(
      `${f.what}: ${KEY_VARIABLE} is the key of no conversation`,
      `unset ${KEY_VARIABLE}, or run this inside the conversation it was given to`,
    )
  if (!f.named) return ALLOWED
  if (f.keyOf !== undefined && f.keyOf !== f.named.id)
    return refused(
      `${f.what}: the key given is conv ${f.keyOf}'s, not conv ${f.named.id}'s`,
      'a conversation acts only as itself: SERVICE_CONVERSATION must name the conversation its key was given to',
    )
  if (f.keyOf === undefined && f.named.hasKey)
    return refused(
      `${f.what}: conv ${f.named.id} acts only with its key, and none was given`,
      `run this inside conv ${f.named.id}, where ${KEY_VARIABLE} is set`,
    )
  return ALLOWED
}

const refused = (message: string, hint: string) => refuse('forbidden', `refused: ${message}`, hint)
