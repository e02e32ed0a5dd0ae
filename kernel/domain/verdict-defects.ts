/** The defects a verdict file lists, one line each: a string as it is; an object by its first text field among
 * defect, title, summary, description, message, text (with its location when it names one), else its JSON. A file that
 * is not JSON or has no `defects` array lists none and says why. */
export function verdictDefects(text: string): { defects: string[]; problem?: string } {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return { defects: [], problem: 'the verdict file is not JSON' }
  }
  const list = typeof doc === 'object' && doc !== null ? (doc as { defects?: unknown }).defects : undefined
  if (!Array.isArray(list)) return { defects: [], problem: 'the verdict file has no defects array' }
  return { defects: list.map(defectLine) }
}

const FIELDS = ['defect', 'title', 'summary', 'description', 'message', 'text'] as const

function defectLine(d: unknown): string {
  if (typeof d === 'string') return d
  if (typeof d !== 'object' || d === null) return JSON.stringify(d)
  const r = d as Record<string, unknown>
  const main = FIELDS.map((f) => r[f]).find((v): v is string => typeof v === 'string')
  if (main === undefined) return JSON.stringify(d)
  const where = [r.file, r.path, r.line].filter((v) => typeof v === 'string' || typeof v === 'number').join(':')
  return where ? `${where}: ${main}` : main
}
