import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT } from '../helpers/home.js'

// What ships (cli/, kernel/, handlers/) imports nothing from fixtures/ (or test/): `npm start` makes its sample
// project and runs its demonstration with product code (cli/demo/), which the tests' fixtures import in turn.

const PRODUCT = ['cli', 'kernel', 'handlers']
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  )

/** Every module specifier of a source file: static imports and re-exports, and dynamic imports of a literal. */
const specifiers = (src: string) =>
  [...src.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1])

test('product code imports nothing from fixtures/ or test/', () => {
  const found: string[] = []
  for (const top of PRODUCT)
    for (const file of sources(join(ROOT, top)))
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue
        const target = relative(ROOT, join(file, '..', spec))
        if (/^(fixtures|test)\//.test(target)) found.push(`${relative(ROOT, file)} imports ${spec}`)
      }
  assert.equal(found, [])
})

test('the scan sees imports: the CLI entry point imports its demonstration from cli/demo/', () => {
  const specs = specifiers(readFileSync(join(ROOT, 'cli', 'start.ts'), 'utf8'))
  assert.ok(specs.includes('./demo/gauntlet.js') && specs.includes('./demo/sample-project.js'), specs.join(', '))
})

test.run()
