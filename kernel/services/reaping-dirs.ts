import type { ConversationRecord } from '../domain/conversation.js'
import type { KernelContext } from './context.js'

/** The directories reaps are working on now, here or on a host, per kernel home (more than one lane may share one):
 * a `--reuse` there is refused until the reap is done, so that it never starts in a directory the reap removes. */
const under = new Map<string, number>()
const keyOf = (home: string, host: string | undefined, dir: string) => `${home}\0${host ?? ''}\0${dir}`

/** `work` (a reap of `rec`), with its directory marked as being reaped from now until it is done. */
export async function whileReaping<T>(ctx: KernelContext, rec: ConversationRecord, work: () => Promise<T>): Promise<T> {
  const key = keyOf(ctx.home, rec.lane?.host, rec.cwd)
  under.set(key, (under.get(key) ?? 0) + 1)
  try {
    return await work()
  } finally {
    const n = (under.get(key) ?? 1) - 1
    if (n) under.set(key, n)
    else under.delete(key)
  }
}

export const beingReaped = (ctx: KernelContext, host: string | undefined, dir: string): boolean =>
  under.has(keyOf(ctx.home, host, dir))
