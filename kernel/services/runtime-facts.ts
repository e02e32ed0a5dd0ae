import { statSync, readFileSync } from 'node:fs'
import type { MarkState, RunnerState } from '../domain/runner-state.js'
import { convFiles } from '../home.js'

export interface Runtime {
  state?: RunnerState
  mark?: MarkState
}

interface Cached<T> {
  stamp: string
  value?: T
}

/** Identity of a file version: every write is a rename, so a new inode (or size, or mtime) means new content. */
function stampOf(path: string): string {
  try {
    const s = statSync(path)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return 'absent'
  }
}

function readJson<T>(path: string, stamp: string): T | undefined {
  if (stamp === 'absent') return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T
  } catch {
    return undefined
  }
}

/** What runners and marks have published (state.json, mark.json). Each read checks the file's identity, so a
 * lost or late file event can never leave a stale answer; the watcher's events only wake waiters. */
export class RuntimeFacts {
  private cache = new Map<string, { state: Cached<RunnerState>; mark: Cached<MarkState> }>()
  constructor(private readonly home: string) {}

  get(name: string): Runtime {
    const files = convFiles(this.home, name)
    let c = this.cache.get(name)
    if (!c) {
      c = { state: { stamp: '' }, mark: { stamp: '' } }
      this.cache.set(name, c)
    }
    for (const [k, path] of [['state', files.state], ['mark', files.mark]] as const) {
      const stamp = stampOf(path)
      if (stamp !== c[k].stamp) c[k] = { stamp, value: readJson(path, stamp) }
    }
    return { state: c.state.value, mark: c.mark.value }
  }

  invalidate(name: string) {
    this.cache.delete(name)
  }
}
