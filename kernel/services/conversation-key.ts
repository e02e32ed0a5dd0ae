import { createHash, randomBytes } from 'node:crypto'

/** A conversation's key: handed to its harness only (never written to disk); the record keeps its hash. */
export function newConversationKey(): { key: string; hash: string } {
  const key = randomBytes(32).toString('base64url')
  return { key, hash: hashConversationKey(key) }
}

export const hashConversationKey = (key: string) => createHash('sha256').update(key).digest('hex')
