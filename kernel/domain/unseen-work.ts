/** Work in a lane's worktree that `git status` does not show: edits behind the assume-unchanged or skip-worktree
 * flags of an index entry, and files hidden by ignore rules written during the lane's life. The reap counts them
 * as uncommitted work and parks them like any other change. */

/** One index entry carrying a flag, as `git ls-files -v -s` shows it, and what is on disk at its path now. */
export interface FlaggedEntry {
  path: string
  /** The tag of `ls-files -v`: lower case for assume-unchanged, `S`/`s` for skip-worktree. */
  tag: string
  mode: string
  blob: string
  /** The file on disk: its git mode and the blob id of its raw bytes (no filters), or undefined if absent. */
  disk?: { mode: string; blob: string }
}

const assumeUnchanged = (tag: string) => tag !== tag.toUpperCase()
const skipWorktree = (tag: string) => tag === 'S' || tag === 's'

/** Is this tag one of an entry whose flags hide changes from `git status`? */
export const isFlagged = (tag: string) => assumeUnchanged(tag) || skipWorktree(tag)

/** The flagged entries that hold work: a file whose content or mode differs from its index entry is dirty whatever
 * its flags say. In a sparse checkout an absent skip-worktree file is what the patterns leave out, not a deletion;
 * any other absent flagged file was deleted. */
export function dirtyFlagged(entries: FlaggedEntry[], sparse: boolean): string[] {
  return entries
    .filter((e) => (e.disk ? e.disk.blob !== e.blob || e.disk.mode !== e.mode : !(sparse && skipWorktree(e.tag))))
    .map((e) => e.path)
}

/** One `.gitignore` of the committed tree: the directory holding it ('' for the top) and its text. */
export interface IgnoreFile {
  dir: string
  text: string
}

/** Glob characters of a directory name, and a leading `#` or `!`, escaped so the name matches only itself. */
const escapeDir = (dir: string) => dir.replace(/[\\*?[]/g, '\\$&').replace(/^[#!]/, '\\$&')

/** The lines of one `.gitignore` in `dir`, rewritten to mean the same from the top of the worktree. A pattern with a
 * slash before its end is relative to its own directory; one without matches at any depth below it. */
export function rulesFromTop(file: IgnoreFile): string[] {
  const out: string[] = []
  for (const raw of file.text.split('\n')) {
    const line = raw.replace(/\r$/, '')
    if (!line.trim() || line.startsWith('#')) continue
    if (!file.dir) {
      out.push(line)
      continue
    }
    const negated = line.startsWith('!')
    // Trailing spaces are no part of a pattern unless escaped.
    const body = (negated ? line.slice(1) : line).replace(/(?<!\\) +$/, '')
    if (!body) continue
    const anchored = body.replace(/\/$/, '').includes('/')
    const path = `${escapeDir(file.dir)}/${anchored ? body.replace(/^\//, '') : `**/${body}`}`
    out.push(negated ? `!${path}` : path)
  }
  return out
}

/** The ignore rules the branch had at launch, as one exclude file read from the top of the worktree: the global
 * excludes, then the shared info/exclude unless it was written after the launch, then the committed `.gitignore`
 * files, each after those of its parent directories (the later match wins, as the deeper file wins in git). The
 * launch is the lane's, or the making of its worktree when that came first (a `--reuse` respawn works in the
 * worktree of an earlier lane, whose rules are no more the branch's than its own). */
export function launchIgnoreRules(f: {
  global?: string
  infoExclude?: { text: string; mtimeMs: number }
  launchedAt: number
  worktreeMadeAt?: number
  files: IgnoreFile[]
}): string {
  const launch = Math.min(f.launchedAt, f.worktreeMadeAt ?? Infinity)
  const parts: IgnoreFile[] = []
  if (f.global) parts.push({ dir: '', text: f.global })
  if (f.infoExclude && f.infoExclude.mtimeMs <= launch) parts.push({ dir: '', text: f.infoExclude.text })
  const depth = (d: string) => (d ? d.split('/').length : 0)
  parts.push(...[...f.files].sort((a, b) => depth(a.dir) - depth(b.dir)))
  return parts
    .flatMap(rulesFromTop)
    .map((l) => l + '\n')
    .join('')
}

/** Untracked files that only rules written during the lane's life hide: listed with the launch rules (`atLaunch`)
 * but not with today's (`now`). They are work. */
export function hiddenByAgent(atLaunch: string[], now: string[]): string[] {
  const seen = new Set(now)
  return atLaunch.filter((p) => !seen.has(p))
}

/** At most `shown` items by name, then how many more: `a, b, c and 2 more`. */
export function someOf(items: string[], shown: number): string {
  const more = items.length > shown ? ` and ${items.length - shown} more` : ''
  return items.slice(0, shown).join(', ') + more
}

/** Bytes for a person: `812 B`, `1.2 kB`, `34.0 MB`. */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let i = 0
  let v = n
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`
}

/** What a reap leaves out: the paths the branch's own ignore rules hide (build output, dependencies), counted and
 * sized, the largest `shown` of them by name. A host's runner sends it home in this form, bounded whatever the
 * worktree holds. */
export interface LeftOut {
  count: number
  bytes: number
  largest: { path: string; bytes: number }[]
}

export function leftOutOf(paths: { path: string; bytes: number }[], shown = 5): LeftOut {
  const largest = [...paths].sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1)).slice(0, shown)
  return { count: paths.length, bytes: paths.reduce((s, p) => s + p.bytes, 0), largest }
}

/** The note a reap prints of what it left out; none when nothing was. */
export function leftOutNote(l: LeftOut): string | undefined {
  if (!l.count) return undefined
  const n = l.count
  const more = n > l.largest.length ? ` and ${n - l.largest.length} more` : ''
  return (
    `note: left out ${n} path${n === 1 ? '' : 's'} the branch's ignore rules hide, ${formatBytes(l.bytes)} in ` +
    `all: ${l.largest.map((p) => `${p.path} (${formatBytes(p.bytes)})`).join(', ')}${more}`
  )
}

/** Attributes that never change a file's bytes between the repository and the disk. Any other attribute might (a
 * filter, line endings, an encoding, one a newer git adds), so a path that has one is read back as raw bytes. */
const KEEPS_BYTES = new Set([
  'diff',
  'merge',
  'whitespace',
  'export-ignore',
  'export-subst',
  'delta',
  'conflict-marker-size',
  'binary',
  'lockable',
])

/** The paths whose bytes on disk may differ from their blob: all of them when core.autocrlf is on, else those with
 * an attribute that may convert (`attrs` as `git check-attr -a` lists them: path, attribute, value). An unset
 * `text` converts nothing. */
export function convertingPaths(
  paths: string[],
  attrs: { path: string; attr: string; value: string }[],
  autocrlf: string | undefined,
): string[] {
  const crlf = (autocrlf ?? '').trim().toLowerCase()
  if (crlf && !['false', 'no', 'off', '0'].includes(crlf)) return paths
  const converting = new Set(
    attrs
      .filter((a) => !KEEPS_BYTES.has(a.attr) && !a.attr.startsWith('linguist-'))
      .filter((a) => !(a.attr === 'text' && a.value === 'unset'))
      .map((a) => a.path),
  )
  return paths.filter((p) => converting.has(p))
}

/** A tracked file as three blob ids: its raw bytes on disk, those bytes through git's filters (what `git status`
 * compares), and the raw bytes a checkout of HEAD writes at its path; and HEAD's own blob. */
export interface ConvertedFacts {
  path: string
  head: string
  raw: string
  filtered: string
  checkout: string
}

/** Work only filters or line-ending conversion hide: git calls the file unchanged (its filtered bytes are HEAD's),
 * but a checkout of HEAD would not write the bytes on disk. */
export const convertedWork = (files: ConvertedFacts[]): string[] =>
  files.filter((f) => f.filtered === f.head && f.raw !== f.checkout).map((f) => f.path)
