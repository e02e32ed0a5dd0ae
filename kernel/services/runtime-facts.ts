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
    // Most conversations have no mark.json, many no state.json: asking without a thrown error is much cheaper.
    const s = statSync(path, { throwIfNoEntry: false })
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'absent'
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
  private cache = new Map<string, { paths: { state: string; mark: string }; state: Cached<RunnerState>; mark: Cached<MarkState> }>()
  constructor(private readonly home: string) {}

  get(name: string): Runtime {
    let c = this.cache.get(name)
    if (!c) {
      const { state, mark } = convFiles(this.home, name)
      c = { paths: { state, mark }, state: { stamp: '' }, mark: { stamp: '' } }
      this.cache.set(name, c)
    }
    for (const k of ['state', 'mark'] as const) {
      const stamp = stampOf(c.paths[k])
      if (stamp !== c[k].stamp) c[k] = { stamp, value: readJson(c.paths[k], stamp) }
    }
    return { state: c.state.value, mark: c.mark.value }
  }

  invalidate(name: string) {
    this.cache.delete(name)
  }
}
