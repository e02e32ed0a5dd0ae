import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Store } from '../../kernel/io/store.js'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import { scratchDir } from '../helpers/home.js'

/** What the store suites share: fresh service homes under one scratch directory, and records made the kernel's way. */
export const BASE = scratchDir('io-store')
let n = 0
/** A fresh service home for one test. */
export function freshHome(): string {
  const dir = join(BASE, `h${++n}`)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}
/** Remove every home of this suite (its test.after). */
export const removeHomes = () => rmSync(BASE, { recursive: true, force: true })
export const agents = (home: string) => join(home, 'agents')
export const convDir = (home: string, name: string) => join(home, 'agents', `conv-${name}`)
export const fallback = (id: string, attempt: number) => `c${id}-${attempt}`

export function record(id: string, name: string, extra: Partial<ConversationRecord> = {}): ConversationRecord {
  return { id, name, createdAt: 1_700_000_000_000 + Number(id), harness: 'none', cwd: '/somewhere', ...extra }
}

/** Create a conversation through the store the way the kernel does: reserve, then create. */
export async function newConv(store: Store, name: string | undefined, extra: Partial<ConversationRecord> = {}) {
  const r = await store.reserve(name, fallback)
  return store.create(record(r.id, r.name, extra))
}
