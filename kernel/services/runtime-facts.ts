import type * as v from 'valibot'
import { MarkStateSchema, RunnerStateSchema, type MarkState, type RunnerState } from '../domain/runner-state.js'
import { checkShape } from '../domain/shape.js'
import { convFiles } from '../io/home.js'
import type { Files } from '../io/adapters.js'
import type { Log } from '../io/log.js'

export interface Runtime {
  state?: RunnerState
  mark?: MarkState
  /** A runner file that was refused (it reads as absent), one line naming it and what is wrong. */
  problem?: string
}

interface Cached<T> {
  stamp: string
  value?: T
  problem?: string
}

/** Identity of a file version: every write is a rename, so a new inode (or size, or mtime) means new content. */
function stampOf(files: Files, path: string): string {
  try {
    // Most conversations have no mark.json, many no state.json: asking without a thrown error is much cheaper.
    const s = files.stat(path)
    if (!s) return 'absent'
    // A pipe or a device put there would block the read (or never end): it is refused unread.
    return s.isFile ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'not a file'
  } catch {
    return 'absent'
  }
}

/** A runner file bigger than this is no runner's (a state is a few KB): it is refused unread. */
const MAX_RUNNER_FILE = 1024 * 1024

/** One version of a runner file: its value, or (when it does not parse or does not hold what it should) none and
 * what is wrong. A file that vanished between the stat and the read is simply absent. */
function readChecked<S extends v.GenericSchema>(
  files: Files,
  path: string,
  stamp: string,
  schema: S,
): Cached<v.InferOutput<S>> {
  if (stamp === 'absent') return { stamp }
  if (stamp === 'not a file') return { stamp, problem: `${path} is not a regular file; read as absent` }
  if (Number(stamp.split(':')[1]) > MAX_RUNNER_FILE)
    return { stamp, problem: `${path} is over ${MAX_RUNNER_FILE} bytes; read as absent` }
  let json: unknown
  try {
    json = JSON.parse(files.readTextSync(path))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { stamp }
    return { stamp, problem: `${path} does not parse (${(e as Error).message}); read as absent` }
  }
  const c = checkShape(schema, json)
  return c.ok
    ? { stamp, value: c.value }
    : { stamp, problem: `${path} does not hold what it should (${c.problem}); read as absent` }
}

/** What runners and marks have published (state.json, mark.json). Each read checks the file's identity, so a
 * lost or late file event can never leave a stale answer; the watcher's events only wake waiters. A file that is
 * refused reads as absent for its conversation alone, logged once per version. */
export class RuntimeFacts {
  private cache = new Map<
    string,
    { paths: { state: string; mark: string }; state: Cached<RunnerState>; mark: Cached<MarkState> }
  >()
  /** The problem last logged per file: a refused file is logged once, however often it is read again. */
  private logged = new Map<string, string>()
  constructor(
    private readonly home: string,
    private readonly files: Files,
    private readonly log: Log = () => {},
  ) {}

  get(name: string): Runtime {
    let c = this.cache.get(name)
    if (!c) {
      const { state, mark } = convFiles(this.home, name)
      c = { paths: { state, mark }, state: { stamp: '' }, mark: { stamp: '' } }
      this.cache.set(name, c)
    }
    const state = this.refresh(c.state, c.paths.state, RunnerStateSchema)
    const mark = this.refresh(c.mark, c.paths.mark, MarkStateSchema)
    c.state = state
    c.mark = mark
    const problem = [state.problem, mark.problem].filter(Boolean).join('; ')
    return { state: state.value, mark: mark.value, ...(problem ? { problem } : {}) }
  }

  private refresh<S extends v.GenericSchema>(
    cached: Cached<v.InferOutput<S>>,
    path: string,
    schema: S,
  ): Cached<v.InferOutput<S>> {
    const stamp = stampOf(this.files, path)
    if (stamp === cached.stamp) return cached
    const fresh = readChecked(this.files, path, stamp, schema)
    if (fresh.problem && this.logged.get(path) !== fresh.problem)
      this.log('error', `runner file refused: ${fresh.problem}`)
    if (fresh.problem) this.logged.set(path, fresh.problem)
    else this.logged.delete(path)
    return fresh
  }

  invalidate(name: string) {
    this.cache.delete(name)
  }
}
