import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT } from '../helpers/home.js'

/** The line-length check of `npm run lint`: no line of a source file is longer than the formatter's width. The
 * formatter wraps code but never a comment, a string or a template's text, so those are wrapped by hand. Two kinds of
 * line are let be: a test's opening line with its title, which the formatter keeps whole so that a failing test's
 * name can be searched for as it is printed; and a line that is one regular expression, which has no place to break
 * that would leave it readable. */
const WIDTH = JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')).printWidth as number
const SOURCE = /\.(ts|tsx|cjs|mjs)$/
const SKIPPED = new Set(['node_modules', 'dist', 'test-artifacts'])
const TEST_TITLE = /^\s*(test|it|suite|describe)(\.\w+)?\(\s*['"`]/
const ONE_REGEXP = /^\s*\/[^/*].*\/[dgimsuy]*(,|\)|\.(exec|test)\()?$/

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || (entry.name.startsWith('.') && entry.isDirectory())) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(path)
    else if (entry.isFile() && SOURCE.test(entry.name)) yield path
  }
}

let over = 0
for (const path of sources(ROOT)) {
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.length <= WIDTH || TEST_TITLE.test(line) || ONE_REGEXP.test(line)) return
      over++
      console.log(`${relative(ROOT, path)}:${i + 1}: ${line.length} characters, over ${WIDTH}; wrap it`)
    })
}
if (over) {
  console.log(`${over} line${over === 1 ? '' : 's'} over ${WIDTH} characters`)
  process.exitCode = 1
}
