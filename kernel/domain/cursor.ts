/** The run wait cursor `<atMs>.<name>.<seq>` (SPEC.md 4.1 wait). Names may hold dots, so the time is everything
 * before the first dot and the sequence everything after the last. */
export interface Cursor {
  at: number
  name: string
  seq: number
}

export const formatCursor = (c: Cursor) => `${c.at}.${c.name}.${c.seq}`

export function parseCursor(text: string): Cursor | undefined {
  const first = text.indexOf('.')
  const last = text.lastIndexOf('.')
  if (first <= 0 || last <= first + 1 || last === text.length - 1) return undefined
  const at = text.slice(0, first)
  const seq = text.slice(last + 1)
  if (!/^\d{1,16}$/.test(at) || !/^\d{1,9}$/.test(seq)) return undefined
  return { at: Number(at), name: text.slice(first + 1, last), seq: Number(seq) }
}

/** Total order of reports: time, then name, then sequence. */
export function compareCursor(a: Cursor, b: Cursor): number {
  if (a.at !== b.at) return a.at - b.at
  if (a.name !== b.name) return a.name < b.name ? -1 : 1
  return a.seq - b.seq
}

export const isAfter = (c: Cursor, after: Cursor | undefined) => !after || compareCursor(c, after) > 0
