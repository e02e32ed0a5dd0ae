/** A safe subset of markdown as data (headings, paragraphs, lists, fenced code, rules; code spans, emphasis, strong,
 * links): the deck turns it into DOM nodes whose text is only ever text. A link keeps its target only when it is
 * http(s); any other (javascript:, data:, relative tricks) stays plain text. Raw HTML is text like any other. */
export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'em' | 'strong'; children: Inline[] }
  | { t: 'link'; href: string; children: Inline[] }

export type Block =
  | { t: 'heading'; level: number; children: Inline[] }
  | { t: 'para'; children: Inline[] }
  | { t: 'list'; ordered: boolean; items: Inline[][] }
  | { t: 'code'; text: string }
  | { t: 'rule' }

const SAFE_HREF = /^https?:\/\/[^\s]+$/i

/** A link target the deck may follow: http(s) only. */
export const safeHref = (href: string): string | undefined => (SAFE_HREF.test(href) ? href : undefined)

const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n')
  const out: Block[] = []
  let para: string[] = []
  const flush = () => {
    if (para.length) out.push({ t: 'para', children: parseInline(para.join(' ')) })
    para = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const fence = /^\s{0,3}(```|~~~)/.exec(line)
    if (fence) {
      flush()
      const body: string[] = []
      while (++i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i])
      out.push({ t: 'code', text: body.join('\n') })
      continue
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    const item = LIST_ITEM.exec(line)
    if (heading) {
      flush()
      out.push({ t: 'heading', level: heading[1].length, children: parseInline(heading[2]) })
    } else if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush()
      out.push({ t: 'rule' })
    } else if (item) {
      flush()
      const ordered = /\d/.test(item[1])
      const items: Inline[][] = [parseInline(item[2])]
      let next: RegExpExecArray | null
      while (i + 1 < lines.length && (next = LIST_ITEM.exec(lines[i + 1])) && /\d/.test(next[1]) === ordered) {
        items.push(parseInline(next[2]))
        i++
      }
      out.push({ t: 'list', ordered, items })
    } else if (line.trim() === '') flush()
    else para.push(line.trim())
  }
  flush()
  return out
}

/** Inline spans, left to right: code first (nothing inside it is markup), then links, strong, emphasis. */
export function parseInline(s: string): Inline[] {
  const out: Inline[] = []
  let text = ''
  const push = (n: Inline) => {
    if (text) out.push({ t: 'text', text })
    text = ''
    out.push(n)
  }
  let i = 0
  while (i < s.length) {
    const rest = s.slice(i)
    const code = /^`([^`]+)`/.exec(rest)
    const link = /^\[([^\]]*)\]\(([^)\s]*)\)/.exec(rest)
    const strong = /^(\*\*|__)(?=\S)(.+?)(?<=\S)\1/.exec(rest)
    const em = /^(\*|_)(?=\S)(.+?)(?<=\S)\1/.exec(rest)
    const m = code ?? link ?? strong ?? em
    if (code) push({ t: 'code', text: code[1] })
    else if (link) {
      const href = safeHref(link[2])
      push(href ? { t: 'link', href, children: parseInline(link[1]) } : { t: 'text', text: link[0] })
    } else if (strong) push({ t: 'strong', children: parseInline(strong[2]) })
    else if (em) push({ t: 'em', children: parseInline(em[2]) })
    if (m) i += m[0].length
    else text += s[i++]
  }
  if (text) out.push({ t: 'text', text })
  return out.reduce<Inline[]>((acc, n) => {
    const last = acc.at(-1)
    if (n.t === 'text' && last?.t === 'text') last.text += n.text
    else acc.push(n)
    return acc
  }, [])
}
