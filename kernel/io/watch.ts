import { watch, type FSWatcher } from 'chokidar'
import { basename, dirname, join } from 'node:path'

interface ConvFileEvent {
  /** The conversation's name (its directory is conv-<name>). */
  name: string
  file: string
}

interface AgentsWatcher {
  /** Watch one more conversation directory (a conversation that may still change). */
  add(dir: string): void
  /** Stop watching a directory (its conversation has ended). */
  remove(dir: string): void
  close(): Promise<void>
  ready: Promise<void>
}

/** How long the watcher keeps quiet about a file it has just reported a change of (chokidar's own window, 50 ms),
 * and a little more. */
const QUIET_MS = 75

/** chokidar reports no change of a file that comes within 50 ms of the last change it reported there, and reports
 * none after: a second write so soon would never be heard. Its raw events still say something happened. A raw event
 * met after a key's last report (or with none since) is reported once more when that window has passed, so the last
 * write of a burst is always followed by a report; a lone write, reported well within the window, is reported once. */
function reportingLast<K>(watcher: FSWatcher, keyOf: (path: string) => K | undefined, report: (key: K) => void) {
  const unheard = new Set<K>()
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    timer = undefined
    const keys = [...unheard]
    unheard.clear()
    if (!watcher.closed) for (const k of keys) report(k)
  }
  watcher.on('raw', (_event, evPath: string | null, details: unknown) => {
    const watched = (details as { watchedPath?: string } | undefined)?.watchedPath
    if (!watched) return
    // A directory's watcher names the entry that changed; a file's, the file itself.
    const path = evPath && basename(watched) !== evPath ? join(watched, evPath) : watched
    const key = keyOf(path)
    if (key === undefined) return
    unheard.add(key)
    timer ??= setTimeout(flush, QUIET_MS).unref()
  })
  return (key: K) => {
    unheard.delete(key)
    report(key)
  }
}

/** One watcher over the conversation directories under agents/: a change to a conversation's files is reported as a
 * hint, and the reader re-reads. Only directories of conversations that can still change are watched, so the cost
 * follows the live conversations, not the size of the store. */
export function watchAgents(dirs: string[], onEvent: (e: ConvFileEvent) => void): AgentsWatcher {
  const ignored = (path: string) => {
    const b = basename(path)
    return b.endsWith('.tmp') || b === 'transcript.jsonl' || b === 'runner.log' || b === 'inbox.txt'
  }
  const watcher: FSWatcher = watch(dirs, { depth: 0, ignoreInitial: true, ignored })
  /** A file of a conversation's directory, as the key of its reports. */
  const keyOf = (path: string) => (!ignored(path) && basename(dirname(path)).startsWith('conv-') ? path : undefined)
  const emit = reportingLast(watcher, keyOf, (path: string) =>
    onEvent({ name: basename(dirname(path)).slice(5), file: basename(path) }),
  )
  watcher.on('all', (event, path) => {
    if ((event === 'add' || event === 'change' || event === 'unlink') && keyOf(path)) emit(path)
  })
  // chokidar never says ready when it is given no path at all.
  const ready = dirs.length ? new Promise<void>((resolve) => watcher.once('ready', () => resolve())) : Promise.resolve()
  // chokidar's add and unwatch are not free (an unwatch of an unknown path rescans its parent, which holds every
  // conversation): only real changes reach it.
  const watched = new Set(dirs)
  return {
    add: (dir) => {
      if (watched.has(dir)) return
      watched.add(dir)
      watcher.add(dir)
    },
    remove: (dir) => {
      if (!watched.delete(dir)) return
      watcher.unwatch(dir)
    },
    close: () => watcher.close(),
    ready,
  }
}

/** Watches lane worktrees: their files, and their own git files (HEAD, index, the reflog a commit appends to). */
export interface WorktreeWatcher {
  /** Watch a worktree and the git directory it uses (the `.git` it names); a change under either calls onChange. */
  add(dir: string, gitDir: string | undefined): void
  /** Stop watching a worktree (its lane is reaped or archived). */
  remove(dir: string): void
  close(): Promise<void>
}

/** Names that never change what `git status` says, or that are too big to watch: dependencies, a repository's
 * objects and other worktrees' files (when the git directory is a checkout's own `.git`). */
const UNWATCHED = new Set(['node_modules', '.git', 'objects', 'worktrees', 'modules'])

/** One watcher over many worktrees (one inotify watch per directory). A change anywhere in a worktree, or to its
 * git files, is reported once per event as the worktree's directory; the reader decides what it means. An error
 * (the system's limit of watches reached) is reported to onError, and that worktree is read as before: on request. */
export function watchWorktrees(onChange: (dir: string) => void, onError: (e: Error) => void): WorktreeWatcher {
  /** Each watched root (a worktree or its git directory) and the worktree it belongs to. */
  const roots = new Map<string, string>()
  const byDir = new Map<string, string[]>()
  const ignored = (path: string) => {
    const b = basename(path)
    return roots.has(path) ? false : UNWATCHED.has(b) || b.endsWith('.lock')
  }
  const watcher: FSWatcher = watch([], { ignoreInitial: true, ignored })
  /** The worktree a path is in, unless the path is one not watched (or under one). */
  const worktreeOf = (path: string) => {
    for (let p = path; ; p = dirname(p)) {
      const dir = roots.get(p)
      if (dir) return dir
      if (ignored(p) || dirname(p) === p) return undefined
    }
  }
  const emit = reportingLast(watcher, worktreeOf, onChange)
  watcher
    .on('all', (_event, path) => {
      const dir = worktreeOf(path)
      if (dir) emit(dir)
    })
    .on('error', (e) => onError(e as Error))
  return {
    add(dir, gitDir) {
      if (byDir.has(dir)) return
      const mine = [dir, ...(gitDir && !gitDir.startsWith(dir + '/') ? [gitDir] : [])]
      byDir.set(dir, mine)
      for (const r of mine) roots.set(r, dir)
      watcher.add(mine)
    },
    remove(dir) {
      const mine = byDir.get(dir)
      if (!mine) return
      byDir.delete(dir)
      for (const r of mine) roots.delete(r)
      watcher.unwatch(mine)
    },
    close: () => watcher.close(),
  }
}
