import type { Adapters } from '../io/adapters.js'
import type * as git from '../io/git.js'
import { Limiter } from '../queue/serial.js'

/** A worktree's git facts are reused while its fingerprint (HEAD, index, top directory) is unchanged and they are
 * younger than this; an edit deeper in the tree shows within this time. */
const GIT_FACTS_TTL_MS = 2000
/** Worktrees read at most eight at a time. */
const reads = new Limiter(8)

interface Entry {
  facts: git.GitFacts
  stamp: string
  at: number
}

/** Git facts of lane worktrees, read concurrently (no index lock) and not recomputed from scratch on every call. */
export class GitFactsCache {
  private entries = new Map<string, Entry>()
  constructor(private readonly io: Pick<Adapters, 'files' | 'git' | 'clock'>) {}

  async many(
    dirs: string[],
    now = this.io.clock.now(),
  ): Promise<Map<string, (git.GitFacts & { asOf: number }) | undefined>> {
    const out = new Map<string, (git.GitFacts & { asOf: number }) | undefined>()
    const todo: string[] = []
    for (const dir of new Set(dirs)) {
      const e = this.entries.get(dir)
      if (e && now - e.at < GIT_FACTS_TTL_MS && e.stamp === this.io.git.worktreeStamp(dir))
        out.set(dir, { ...e.facts, asOf: e.at })
      else todo.push(dir)
    }
    await Promise.all(todo.map((dir) => reads.run(async () => void out.set(dir, await this.fresh(dir)))))
    return out
  }

  async fresh(dir: string): Promise<(git.GitFacts & { asOf: number }) | undefined> {
    if (!this.io.files.exists(dir)) {
      this.entries.delete(dir)
      return undefined
    }
    const stamp = this.io.git.worktreeStamp(dir)
    const at = this.io.clock.now()
    try {
      const facts = await this.io.git.statusFacts(dir)
      this.entries.set(dir, { facts, stamp, at })
      return { ...facts, asOf: at }
    } catch {
      return undefined
    }
  }

  forget(dir: string) {
    this.entries.delete(dir)
  }
}
