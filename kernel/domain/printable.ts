/** Text from outside made safe to show: every control character (C0, DEL, C1), the line and paragraph separators
 * and the bidirectional controls (embeddings, overrides, isolates, marks) become a visible escape, so a value can
 * neither forge a line or a table row, nor move the cursor, nor reorder what a terminal or a page shows. The deck's
 * browser bundle imports this very module. */
export function printable(s: string, keepLines = false): string {
  return String(s).replace(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (keepLines && (c === '\n' || c === '\t')) return c
    if (c === '\n') return '\\n'
    if (c === '\r') return '\\r'
    if (c === '\t') return '\\t'
    const code = c.charCodeAt(0)
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
