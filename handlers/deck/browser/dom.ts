import { safeHref } from '../../../kernel/domain/markdown.js'
import { printable } from '../../../kernel/domain/printable.js'

/** DOM built by construction: text only ever becomes a text node (made printable first: no control or
 * bidirectional character reaches the page), attributes are set one by one, and a link's target is either a path of
 * this deck or an http(s) address. No HTML is ever parsed from a string. */
export type Child = Node | string | number | null | undefined | false | Child[]
type AttrValue = string | number | boolean | undefined | null
type Attrs = Record<string, AttrValue | ((e: Event) => void)>

const text = (s: unknown, keepLines = true): Text => document.createTextNode(printable(String(s ?? ''), keepLines))

/** A link target as given, if it is one of the deck's own paths or http(s); otherwise none. */
const hrefOf = (href: string): string | undefined => (/^\/[a-z]/.test(href) ? href : safeHref(href))

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.slice(2), v)
    else if (v === undefined || v === null || v === false) continue
    else if (k === 'href') {
      const href = hrefOf(String(v))
      if (href) el.setAttribute('href', href)
    } else el.setAttribute(k, v === true ? '' : String(v))
  }
  append(el, children)
  return el
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    if (Array.isArray(c)) append(el, c)
    else el.appendChild(typeof c === 'string' || typeof c === 'number' ? text(c) : c)
  }
}

/** Replace an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren()
  append(el, children)
}

export const must = <E extends Element = HTMLElement>(sel: string) => {
  const el = document.querySelector<E>(sel)
  if (!el) throw new Error(`the page has no ${sel}`)
  return el
}
