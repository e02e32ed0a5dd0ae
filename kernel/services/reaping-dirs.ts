import type { ConversationRecord } from '../domain/conversation.js'
import type { KernelContext } from './context.js'

/** The directories reaps are working on now, here or on a host, per kernel home (more than one lane may share one):
 * a `--reuse` there is refused until the reap is done, so that it never starts in a directory the reap removes. */
const under = new Map<string, number>()
/** The `--reuse` starts let into a directory here and not yet running in it: a reap of it waits for them. */
const reusing = new Map<string, Set<Promise<void>>>()
const keyOf = (home: string, host: string | undefined, dir: string) => `${home}\0${host ?? ''}\0${dir}`

/** `work` (a reap of `rec`), with its directory marked as being reaped from now until it is done. A `--reuse` start
 * let into the directory before (its harness not yet running there) is waited for first: the reap then finds it
 * inside, as it would have a moment later, and never removes the directory under it. */
export async function whileReaping<T>(ctx: KernelContext, rec: ConversationRecord, work: () => Promise<T>): Promise<T> {
  const key = keyOf(ctx.home, rec.lane?.host, rec.cwd)
  under.set(key, (under.get(key) ?? 0) + 1)
  try {
    const starts = reusing.get(key)
    if (starts) {
      ctx.log('info', `reap of ${rec.name} waits for the --reuse start in ${rec.cwd} to run there`)
      await Promise.all(starts)
    }
    return await work()
  } finally {
    const n = (under.get(key) ?? 1) - 1
    if (n) under.set(key, n)
    else under.delete(key)
  }
}

export const beingReaped = (ctx: KernelContext, host: string | undefined, dir: string): boolean =>
  under.has(keyOf(ctx.home, host, dir))

/** Hold a directory here for a `--reuse` start let into it (checked not being reaped, at the same moment): a reap
 * that begins before the start's harness runs there waits until the returned release is called. */
export function holdForReuse(ctx: KernelContext, dir: string): () => void {
  const key = keyOf(ctx.home, undefined, dir)
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  const set = reusing.get(key) ?? new Set()
  reusing.set(key, set.add(held))
  return () => {
    release()
    set.delete(held)
    if (!set.size && reusing.get(key) === set) reusing.delete(key)
  }
}
