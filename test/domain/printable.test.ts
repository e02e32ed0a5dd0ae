import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { printable } from '../../kernel/domain/printable.js'

const CASES: [string, string, string][] = [
  ['plain text stays', 'opus-4 café 模型', 'opus-4 café 模型'],
  ['newline and carriage return', 'a\nb\rc', 'a\\nb\\rc'],
  ['tab', 'a\tb', 'a\\tb'],
  ['escape sequence (C0)', '\x1b[31mred', '\\x1b[31mred'],
  ['NUL and bell', '\x00\x07', '\\x00\\x07'],
  ['DEL', 'a\x7fb', 'a\\x7fb'],
  ['C1 (CSI)', 'a\x9b2Jb', 'a\\x9b2Jb'],
  ['right-to-left override', 'abc\u202edcba', 'abc\\u202edcba'],
  [
    'isolates and marks',
    '\u2066\u2067\u2068\u2069\u200e\u200f\u061c',
    '\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c',
  ],
  ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
]

test('printable escapes every control, separator and bidirectional character visibly', () => {
  for (const [what, input, want] of CASES) assert.is(printable(input), want, what)
})

test('printable with keepLines keeps newlines and tabs, escapes the rest', () => {
  assert.is(printable('a\nb\tc\x1b[2J\u202e', true), 'a\nb\tc\\x1b[2J\\u202e')
})

test.run()
