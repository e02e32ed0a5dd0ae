import * as v from 'valibot'
import { GitFactsSchema } from './git-facts.js'
import { checkShape, type Checked } from './shape.js'

/** The git facts one kernel leaves for the next (`git-facts.json` in the service home): each worktree's last facts,
 * the stamp they were read at (HEAD, the index and the top directory) and when. A restarted kernel answers from
 * them at once, where the stamp still matches, while it reads every worktree again behind. */
export const SavedGitFactsSchema = v.object({
  worktrees: v.array(v.object({ dir: v.string(), facts: GitFactsSchema, stamp: v.string(), at: v.number() })),
})

export type SavedGitFacts = v.InferOutput<typeof SavedGitFactsSchema>
export type SavedWorktree = SavedGitFacts['worktrees'][number]

/** The saved facts, checked: a file that does not hold them is refused with what is wrong (and read as none). */
export const checkSavedGitFacts = (value: unknown): Checked<SavedGitFacts> => checkShape(SavedGitFactsSchema, value)
