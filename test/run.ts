import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync, rmSync, rmdirSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TEST_HOMES } from './helpers/home.js'

/** Runs every uvu suite under dist/test, prints uvu's report, then the one line CI reads: `N passed, N failed`.
 * Each suite directory runs in its own process so one crash cannot hide the others' counts. */
const groups = (process.argv.slice(2).length ? process.argv.slice(2) : ['domain', 'io', 'handlers', 'cli', 'e2e', 'reliability', 'browser']).filter((g) =>
  existsSync(join(ROOT, 'dist', 'test', g)),
)
const suitePids: number[] = []
let passed = 0
let failed = 0
const uvu = join(ROOT, 'node_modules', 'uvu', 'bin.js')

for (const group of groups) {
  const code = await new Promise<{ code: number; out: string }>((resolve) => {
    const child = spawn(process.execPath, [uvu, join('dist', 'test', group), '.test.js$'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    if (child.pid) suitePids.push(child.pid)
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
// Only the homes of this run's suites (named <label>-<pid>-<random>): other runs may be using theirs right now.
for (const name of existsSync(TEST_HOMES) ? readdirSync(TEST_HOMES) : [])
  if (suitePids.some((pid) => name.includes(`-${pid}-`))) rmSync(join(TEST_HOMES, name), { recursive: true, force: true })
try {
  rmdirSync(TEST_HOMES) // only when empty
} catch {}
const line = `${passed} passed, ${failed} failed`
mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true })
writeFileSync(join(ROOT, 'test-artifacts', 'summary.txt'), line + '\n')
console.log(line)
process.exit(failed ? 1 : 0)
