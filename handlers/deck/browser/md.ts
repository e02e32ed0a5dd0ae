import { parseMarkdown, type Block, type Inline } from '../../../kernel/domain/markdown.js'
import { h, type Child } from './dom.js'

/** Markdown as DOM nodes: the safe subset kernel/domain/markdown.ts parses, every piece of text a text node. */
export const markdown = (src: string) => h('div', { class: 'md' }, parseMarkdown(src).map(block))

function block(b: Block): Child {
  switch (b.t) {
    case 'heading':
      return h(`h${Math.min(6, b.level + 2)}` as 'h3', {}, b.children.map(inline))
    case 'para':
      return h('p', {}, b.children.map(inline))
    case 'list':
      return h(
        b.ordered ? 'ol' : 'ul',
        {},
        b.items.map((i) => h('li', {}, i.map(inline))),
      )
    case 'code':
      return h('pre', { class: 'code' }, h('code', {}, b.text))
    case 'rule':
      return h('hr')
  }
}

function inline(n: Inline): Child {
  switch (n.t) {
    case 'text':
      return n.text
    case 'code':
      return h('code', {}, n.text)
    case 'em':
    case 'strong':
      return h(n.t, {}, n.children.map(inline))
    case 'link':
      return h('a', { href: n.href, rel: 'noopener noreferrer nofollow', target: '_blank' }, n.children.map(inline))
  }
}
