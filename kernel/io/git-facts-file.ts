import { readFileSync } from 'node:fs'
import { rename, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { checkSavedGitFacts, type SavedWorktree } from '../domain/saved-git-facts.js'

/** git-facts.json in the home: the lane worktrees' git facts as the kernel last read them, so that the next kernel
 * shows them at once (services/git-facts). A file that is missing reads as none; one that does not parse or holds
 * anything else also reads as none, with one line saying why (every worktree is then read, as on a first start),
 * and is replaced at the next save. It is a cache: written whole under a temp name and renamed (never half), without
 * the store's fsyncs and crash points. */
let saves = 0

export function gitFactsFile(path: string, warn: (message: string) => void) {
  return {
    load(): SavedWorktree[] {
      let json: unknown
      try {
        json = JSON.parse(readFileSync(path, 'utf8'))
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
          warn(`${path} is unreadable (${(e as Error).message}); every worktree's git facts are read anew`)
        return []
      }
      const checked = checkSavedGitFacts(json)
      if (checked.ok) return checked.value.worktrees
      warn(`${path} does not hold git facts (${checked.problem}); every worktree's git facts are read anew`)
      return []
    },
    async save(worktrees: SavedWorktree[]): Promise<void> {
      const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++saves}.tmp`)
      try {
        await writeFile(tmp, JSON.stringify({ worktrees }) + '\n', { mode: 0o600 })
        await rename(tmp, path)
      } catch (e) {
        await unlink(tmp).catch(() => {})
        warn(`could not keep the git facts in ${path}: ${(e as Error).message}`)
      }
    },
  }
}
