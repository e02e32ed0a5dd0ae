import { gitTry } from './git.js'

/** A change against a base as git prints it: the stat, and the patch cut at `maxBytes` (on a line boundary when one
 * is near). `dir` is a worktree (the diff runs against its files, so uncommitted tracked changes show too) or, with
 * `tip`, a repository where the tip is compared with the base. */
export async function diffAgainst(
  dir: string,
  base: string,
  maxBytes: number,
  tip?: string,
): Promise<{ base: string; stat: string; patch: string; bytes: number; truncated: boolean } | { unavailable: string }> {
  const mb = await gitTry(dir, ['merge-base', base, tip ?? 'HEAD'])
  if (!mb.ok)
    return { unavailable: `no common base with ${base}: ${mb.stderr.split('\n').at(-1) || `exit code ${mb.code}`}` }
  const from = mb.stdout.trim()
  const range = tip ? [from, tip] : [from]
  const [stat, patch] = await Promise.all([
    gitTry(dir, ['diff', '--stat', '--no-color', ...range]),
    gitTry(dir, ['diff', '--no-color', '--no-ext-diff', ...range]),
  ])
  if (!stat.ok || !patch.ok)
    return { unavailable: `git diff failed in ${dir}: ${(stat.ok ? patch : stat).stderr.split('\n').at(-1)}` }
  const bytes = Buffer.byteLength(patch.stdout)
  if (bytes <= maxBytes)
    return { base: `${base} (${from.slice(0, 7)})`, stat: stat.stdout, patch: patch.stdout, bytes, truncated: false }
  const cut = Buffer.from(patch.stdout)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
  const atLine = cut.lastIndexOf('\n')
  return {
    base: `${base} (${from.slice(0, 7)})`,
    stat: stat.stdout,
    patch: atLine > maxBytes / 2 ? cut.slice(0, atLine + 1) : cut,
    bytes,
    truncated: true,
  }
}
