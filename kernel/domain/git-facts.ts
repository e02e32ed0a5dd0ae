import * as v from 'valibot'

const count = v.pipe(v.number(), v.integer(), v.minValue(0))
const name = v.pipe(v.string(), v.maxLength(4096))

/** What `git status` says of a worktree (io/git.ts statusFacts reads it, here or on a host): one shape wherever the
 * facts are kept or sent: the file a kernel leaves for the next, a host runner's events, a remote lane's state. */
export const GitFactsSchema = v.object({
  branch: v.optional(name),
  head: v.optional(name),
  upstream: v.optional(name),
  /** The upstream is configured but origin has no such branch (nothing pushed yet, or it was deleted). */
  upstreamGone: v.optional(v.boolean()),
  ahead: v.optional(count),
  behind: v.optional(count),
  dirty: v.boolean(),
  /** Changed, deleted or untracked paths. */
  dirtyPaths: count,
})
export type GitFacts = v.InferOutput<typeof GitFactsSchema>

/** Whether two reads of a worktree say the same: a read that says something new is news (the lane's row changes). */
export const sameGitFacts = (a: GitFacts, b: GitFacts) =>
  a.branch === b.branch &&
  a.head === b.head &&
  a.upstream === b.upstream &&
  a.upstreamGone === b.upstreamGone &&
  a.ahead === b.ahead &&
  a.behind === b.behind &&
  a.dirty === b.dirty &&
  a.dirtyPaths === b.dirtyPaths
