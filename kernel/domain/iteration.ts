/** SPEC.md glossary: the iteration of a lane is the count of distinct working directories among lanes with the same
 * run, key and role, in launch order; a `--reuse` respawn keeps the iteration of the lane it continues. */
export function nextIteration(earlier: readonly { dir: string; iteration: number }[]): number {
  return new Set(earlier.map((l) => l.dir)).size + 1
}
