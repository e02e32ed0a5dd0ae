import { watch, type FSWatcher } from 'chokidar'
import { basename, dirname } from 'node:path'

export interface ConvFileEvent {
  /** The conversation's name (its directory is conv-<name>). */
  name: string
  file: string
}

/** One watcher over agents/: a change to a conversation's files is reported as a hint; the reader re-reads. */
export function watchAgents(agentsDir: string, onEvent: (e: ConvFileEvent) => void): { close: () => Promise<void>; ready: Promise<void> } {
  const watcher: FSWatcher = watch(agentsDir, {
    depth: 1,
    ignoreInitial: true,
    ignored: (path: string) => {
      const b = basename(path)
      return b.endsWith('.tmp') || b === 'transcript.jsonl' || b === 'runner.log'
    },
  })
  const emit = (path: string) => {
    const dir = basename(dirname(path))
    if (!dir.startsWith('conv-')) return
    onEvent({ name: dir.slice(5), file: basename(path) })
  }
  watcher.on('add', emit).on('change', emit).on('unlink', emit)
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return { close: () => watcher.close(), ready }
}
