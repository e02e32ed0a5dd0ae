/** "Newest by time", the one way the rulebook picks it: the greatest time wins, and of equal times the later one in
 * the list. */
export const newestBy = <T>(xs: readonly T[], at: (x: T) => number) =>
  xs.reduce<T | undefined>((a, b) => (!a || at(b) >= at(a) ? b : a), undefined)

/** The newest of some timed things. */
export const newest = <T extends { at: number }>(xs: readonly (T | undefined)[]) =>
  newestBy(
    xs.filter((x): x is T => x !== undefined),
    (x) => x.at,
  )

/** Conversations in the order they were created: ids are numbers given out in order (SPEC.md 4.1 list). */
export const inIdOrder = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id)
