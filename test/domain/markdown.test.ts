import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parseMarkdown, parseInline, safeHref, type Block, type Inline } from '../../kernel/domain/markdown.js'

// The safe subset of markdown the deck renders: structure as data, text only ever text, links only http(s).

const t = (text: string): Inline => ({ t: 'text', text })

test('parseInline: code, links, strong, emphasis; raw HTML stays text', () => {
  const CASES: [string, Inline[]][] = [
    ['plain', [t('plain')]],
    ['a `<b>` c', [t('a '), { t: 'code', text: '<b>' }, t(' c')]],
    ['**bold** and *em*', [{ t: 'strong', children: [t('bold')] }, t(' and '), { t: 'em', children: [t('em')] }]],
    ['[site](https://example.org/x)', [{ t: 'link', href: 'https://example.org/x', children: [t('site')] }]],
    ['[x](javascript:alert(1))', [t('[x](javascript:alert(1))')]],
    ['[x](data:text/html,hi)', [t('[x](data:text/html,hi)')]],
    ['[x](/conv/1)', [t('[x](/conv/1)')]],
    ['<img src=x onerror=alert(1)>', [t('<img src=x onerror=alert(1)>')]],
    ['`**not bold**`', [{ t: 'code', text: '**not bold**' }]],
    ['a * b * c', [t('a * b * c')]],
  ]
  for (const [src, want] of CASES) assert.equal(parseInline(src), want, src)
})

test('parseMarkdown: headings, paragraphs, lists, fenced code, rules', () => {
  const src = '# Title\n\nline one\nline two\n\n- a\n- **b**\n\n1. one\n2. two\n\n```\n<script>x</script>\n```\n---\n'
  const want: Block[] = [
    { t: 'heading', level: 1, children: [t('Title')] },
    { t: 'para', children: [t('line one line two')] },
    { t: 'list', ordered: false, items: [[t('a')], [{ t: 'strong', children: [t('b')] }]] },
    { t: 'list', ordered: true, items: [[t('one')], [t('two')]] },
    { t: 'code', text: '<script>x</script>' },
    { t: 'rule' },
  ]
  assert.equal(parseMarkdown(src), want)
  assert.equal(parseMarkdown('```\nunclosed'), [{ t: 'code', text: 'unclosed' }])
})

test('safeHref: http(s) only', () => {
  const CASES: [string, string | undefined][] = [
    ['https://a.example/b', 'https://a.example/b'],
    ['HTTP://a.example', 'HTTP://a.example'],
    ['javascript:alert(1)', undefined],
    [' javascript:alert(1)', undefined],
    ['JaVaScRiPt:alert(1)', undefined],
    ['data:text/html,x', undefined],
    ['//evil.example', undefined],
    ['https://a b', undefined],
  ]
  for (const [href, want] of CASES) assert.is(safeHref(href), want, href)
})

test.run()
