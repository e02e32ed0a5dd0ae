import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

// Which of the rulebook's exports the product calls: the names the code outside the rulebook uses (comments and the
// text of strings left out), and through them every rulebook declaration whose body names another. Read from the
// source, name by name: a name declared in two rulebook modules counts as one.

/** The source with comments and the text of strings and templates blanked out; a template's `${...}` stays code. */
export function codeOnly(src: string): string {
  let out = ''
  let i = 0
  /** For each template entered through `${`, the brace depth at which its code ends. */
  const templates: number[] = []
  let depth = 0
  let last = '' // the last character of code that is not a space: whether a `/` starts a regular expression
  const skipTemplate = () => {
    // i is just past a backtick or a `}` that closes a `${`: the template's text up to its end or its next `${`.
    while (i < src.length) {
      if (src[i] === '\\') i += 2
      else if (src[i] === '`') return void i++
      else if (src[i] === '$' && src[i + 1] === '{') {
        i += 2
        templates.push(depth++)
        return
      } else i++
    }
  }
  while (i < src.length) {
    const c = src[i]
    const n = src[i + 1]
    if (c === '/' && n === '/') {
      while (i < src.length && src[i] !== '\n') i++
    } else if (c === '/' && n === '*') {
      const end = src.indexOf('*/', i + 2)
      i = end < 0 ? src.length : end + 2
    } else if (c === '"' || c === "'") {
      for (i++; i < src.length && src[i] !== c && src[i] !== '\n'; i++) if (src[i] === '\\') i++
      i++
      out += ' "" '
      last = '"'
    } else if (c === '`') {
      i++
      skipTemplate()
      out += ' "" '
      last = '"'
    } else if (
      c === '/' &&
      (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last) || /\b(return|typeof)$/.test(out.slice(-8)))
    ) {
      // A regular expression: to its closing slash, outside a character class.
      let inClass = false
      for (i++; i < src.length && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++
        else if (src[i] === '[') inClass = true
        else if (src[i] === ']') inClass = false
        else if (src[i] === '/' && !inClass) break
      }
      i++
      while (/[a-z]/.test(src[i] ?? '')) i++
      out += ' /r/ '
      last = '/'
    } else if (c === '}' && templates.length && templates[templates.length - 1] === depth - 1) {
      templates.pop()
      depth--
      i++
      skipTemplate()
      out += ' "" '
      last = '"'
    } else {
      if (c === '{') depth++
      else if (c === '}') depth--
      out += c
      if (!/\s/.test(c)) last = c
      i++
    }
  }
  return out
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/g
const names = (code: string) => new Set(code.match(IDENTIFIER) ?? [])
/** A declaration at the top of a module (the formatter puts each at the start of a line). */
const DECLARATION =
  /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm

/** Each top-level declaration of a module and the names its text uses. */
export function declarations(code: string): Map<string, Set<string>> {
  const found = [...code.matchAll(DECLARATION)]
  const out = new Map<string, Set<string>>()
  found.forEach((m, k) => {
    const end = k + 1 < found.length ? found[k + 1].index : code.length
    const used = names(code.slice(m.index + m[0].length, end))
    out.set(m[1], new Set([...(out.get(m[1]) ?? []), ...used]))
  })
  return out
}

/** The rulebook's declarations the product reaches: named by its code outside the rulebook, or by the text of a
 * declaration reached. `rulebook` and `product` are sources. */
export function reachedRules(rulebook: string[], product: string[]): Set<string> {
  const decls = new Map<string, Set<string>>()
  for (const src of rulebook)
    for (const [name, used] of declarations(codeOnly(src)))
      decls.set(name, new Set([...(decls.get(name) ?? []), ...used]))
  const reached = new Set<string>()
  const todo = product.flatMap((src) => [...names(codeOnly(src))]).filter((n) => decls.has(n))
  while (todo.length) {
    const name = todo.pop()!
    if (reached.has(name)) continue
    reached.add(name)
    for (const n of decls.get(name)!) if (decls.has(n) && !reached.has(n)) todo.push(n)
  }
  return reached
}

/** The TypeScript sources under `dirs` of `root`, each as its path from root and its text. */
export function sourcesUnder(root: string, dirs: string[]): { path: string; text: string }[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
    )
  return dirs
    .flatMap((d) => walk(join(root, d)))
    .map((p) => ({ path: relative(root, p), text: readFileSync(p, 'utf8') }))
}
