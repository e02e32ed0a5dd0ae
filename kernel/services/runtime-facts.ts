import type { MarkState, RunnerState } from '../domain/runner-state.js'
import { convFiles } from '../home.js'
import { readTextOrUndefined } from '../io/atomic-file.js'

export interface Runtime {
  state?: RunnerState
  mark?: MarkState
}

const parse = <T>(text: string | undefined): T | undefined => {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}

/** What runners and marks have published (state.json, mark.json), cached per conversation and dropped when the
 * watcher sees the files change. */
export class RuntimeFacts {
  private cache = new Map<string, Runtime>()
  constructor(private readonly home: string) {}

  get(name: string): Runtime {
    let rt = this.cache.get(name)
    if (!rt) {
      const files = convFiles(this.home, name)
      rt = { state: parse<RunnerState>(readTextOrUndefined(files.state)), mark: parse<MarkState>(readTextOrUndefined(files.mark)) }
      this.cache.set(name, rt)
    }
    return rt
  }

  invalidate(name: string) {
    this.cache.delete(name)
  }
}
