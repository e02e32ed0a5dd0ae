import type { Ids } from '../io/adapters.js'

/** A conversation's key: handed to its harness only (never written to disk); the record keeps its hash. */
export function newConversationKey(ids: Ids): { key: string; hash: string } {
  const key = ids.token(32)
  return { key, hash: hashConversationKey(ids, key) }
}

export const hashConversationKey = (ids: Ids, key: string) => ids.sha256(key)
