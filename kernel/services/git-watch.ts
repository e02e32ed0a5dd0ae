import { gitFactsFrom } from '../domain/activity.js'
import { isLane, type LaneRecord } from '../domain/lane.js'
import type { WorktreeWatcher } from '../io/watch.js'
import type { KernelContext, KernelEvent } from './context.js'
import { GIT_SETTLE_MS, GitFactsCache, type SavedFactsFile } from './git-facts.js'

/** The lanes whose git facts the kernel reads from a worktree here (SPEC.md 3 related rule 4). */
const gitLanes = (ctx: KernelContext): LaneRecord[] =>
  ctx.store
    .all()
    .filter(isLane)
    .filter((r) => gitFactsFrom(r) === 'worktree')

/** The kernel's git facts: each worktree watched once read, read again only when it moves or its lane reports or
 * changes state; facts that changed are a `git` change of each lane working there (the deck redraws its row). */
export function watchedGitFacts(
  ctx: KernelContext,
  watch: (onChange: (dir: string) => void) => WorktreeWatcher,
  saved?: SavedFactsFile,
): GitFactsCache {
  const cache = new GitFactsCache(ctx.io, {
    watch,
    changed: (dir) => {
      for (const r of gitLanes(ctx)) if (r.cwd === dir) ctx.emit({ name: r.name, what: 'git' })
    },
    settleMs: ctx.io.timing('GIT_SETTLE', GIT_SETTLE_MS),
    saved,
  })
  // A report follows a push, and a turn's end follows its edits: what the watcher of the worktree cannot see (the
  // upstream's refs live in the repository) is read again then.
  ctx.events.on('change', (e: KernelEvent) => {
    if (e.what !== 'report' && e.what !== 'state') return
    const rec = ctx.store.getByName(e.name)
    if (rec && isLane(rec) && gitFactsFrom(rec) === 'worktree') cache.touch(rec.cwd)
  })
  return cache
}

/** Read every lane worktree once, in the background, so the first list or deck finds them read and watched. */
export const warmGitFacts = (ctx: KernelContext, cache: GitFactsCache) => cache.warm(gitLanes(ctx).map((r) => r.cwd))
