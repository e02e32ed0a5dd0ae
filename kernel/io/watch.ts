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
