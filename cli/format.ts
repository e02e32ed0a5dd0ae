import { age as ageAt } from '../kernel/domain/format.js'
import { printable } from '../kernel/domain/printable.js'

/** Columns aligned for a terminal; the last column is not padded. Every cell is made printable, so no value can
 * forge a row or reach the terminal as a control sequence. */
export function textTable(headers: string[], rawRows: string[][]): string {
  const rows = rawRows.map((r) => r.map((c) => printable(c)))
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const row = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  return [row(headers), ...rows.map(row)].join('\n') + '\n'
}

/** A one-line message: whatever it quotes is made printable, so it stays one line. */
export const line = (text: string) => printable(text) + '\n'

export const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n'

/** How long ago, now: the shared formatter with the clock read here, at the edge. */
export const age = (ms: number, now = Date.now()) => ageAt(ms, now)
