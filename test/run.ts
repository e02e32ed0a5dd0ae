import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TEST_HOMES } from './helpers/home.js'

/** Runs every uvu suite under dist/test, prints uvu's report, then the one line CI reads: `N passed, N failed`.
 * Each suite directory runs in its own process so one crash cannot hide the others' counts. */
const groups = (process.argv.slice(2).length ? process.argv.slice(2) : ['domain', 'io', 'handlers', 'cli', 'e2e', 'reliability', 'browser']).filter((g) =>
  existsSync(join(ROOT, 'dist', 'test', g)),
)
let passed = 0
let failed = 0
const uvu = join(ROOT, 'node_modules', 'uvu', 'bin.js')

for (const group of groups) {
  const code = await new Promise<{ code: number; out: string }>((resolve) => {
    const child = spawn(process.execPath, [uvu, join('dist', 'test', group), '.test.js$'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      process.stdout.write(d)
    })
    child.on('close', (c) => resolve({ code: c ?? 1, out }))
  })
  const total = Number(/Total:\s+(\d+)/.exec(code.out)?.[1] ?? 0)
  const ok = Number(/Passed:\s+(\d+)/.exec(code.out)?.[1] ?? 0)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(code.out)?.[1] ?? 0)
  const noTests = /No test files found|Cannot find/.test(code.out) || (total === 0 && code.code === 0)
  passed += ok
  failed += total - ok - skipped
  if (code.code !== 0 && total - ok - skipped === 0 && !noTests) failed += 1 // a suite that crashed before counting
}
rmSync(TEST_HOMES, { recursive: true, force: true })
const line = `${passed} passed, ${failed} failed`
mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true })
writeFileSync(join(ROOT, 'test-artifacts', 'summary.txt'), line + '\n')
console.log(line)
process.exit(failed ? 1 : 0)
