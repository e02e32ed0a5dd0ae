import { h, type Child } from './dom.js'

/** The fields of a tool's input that say what it does, most telling first. */
const TELLING = ['command', 'file_path', 'path', 'url', 'pattern', 'query', 'description']

const valueText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

/** A transcript's tool call (`<Tool> <JSON input>`, as a harness records it) made readable: the tool's name, then
 * what it does (its command, its path, ...), then any other field as `name: value` on its own line. Anything else
 * (a tool's result, an error) stays the text it is. */
export function toolCall(text: string): Child {
  const m = /^([\w.:-]+) (\{[\s\S]*\})$/.exec(text)
  if (!m) return text
  let input: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(m[2])
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return text
    input = parsed as Record<string, unknown>
  } catch {
    return text
  }
  const keys = Object.keys(input)
  const main = TELLING.find((k) => typeof input[k] === 'string' && k !== 'description')
  const rest = keys.filter((k) => k !== main)
  return [
    h('span', { class: 'tool-name', 'data-tool-name': m[1] }, m[1]),
    main ? [' ', h('code', { class: 'tool-main' }, String(input[main]))] : null,
    rest.map((k) => h('div', { class: 'tool-field', 'data-field': k }, `${k}: ${valueText(input[k])}`)),
  ]
}
