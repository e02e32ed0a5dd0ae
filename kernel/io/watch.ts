import { watch, type FSWatcher } from 'chokidar'
import { basename, dirname } from 'node:path'

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

/** One watcher over the conversation directories under agents/: a change to a conversation's files is reported as a
 * hint, and the reader re-reads. Only directories of conversations that can still change are watched, so the cost
 * follows the live conversations, not the size of the store. */
export function watchAgents(dirs: string[], onEvent: (e: ConvFileEvent) => void): AgentsWatcher {
  const watcher: FSWatcher = watch(dirs, {
    depth: 0,
    ignoreInitial: true,
    ignored: (path: string) => {
      const b = basename(path)
      return b.endsWith('.tmp') || b === 'transcript.jsonl' || b === 'runner.log' || b === 'inbox.txt'
    },
  })
  const emit = (path: string) => {
    const dir = basename(dirname(path))
    if (!dir.startsWith('conv-')) return
    onEvent({ name: dir.slice(5), file: basename(path) })
  }
  watcher.on('add', emit).on('change', emit).on('unlink', emit)
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
  const watcher: FSWatcher = watch([], {
    ignoreInitial: true,
    ignored: (path: string) => {
      const b = basename(path)
      return roots.has(path) ? false : UNWATCHED.has(b) || b.endsWith('.lock')
    },
  })
  const emit = (path: string) => {
    for (let p = path; ; p = dirname(p)) {
      const dir = roots.get(p)
      if (dir) return onChange(dir)
      if (dirname(p) === p) return
    }
  }
  watcher.on('all', (_event, path) => emit(path)).on('error', (e) => onError(e as Error))
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
