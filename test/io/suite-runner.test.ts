import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, alive, scratchDir } from '../helpers/home.js'

// The test runner CI relies on: whatever a suite file does (leave a process holding its output, queue no test, hang),
// the run ends, counts it, and prints its `N passed, N failed` line.

const dir = scratchDir('suite-runner')
const RUN = join(ROOT, 'dist', 'test', 'run.js')

/** A folder of suite files (group `g`) beside a package that resolves the project's uvu, and its own artifacts. */
function suites(name: string, files: Record<string, string>, durations: Record<string, number> = {}) {
  const root = join(dir, name)
  mkdirSync(join(root, 'g'), { recursive: true })
  mkdirSync(join(root, 'artifacts'))
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n')
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'))
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, 'g', file), text)
  const times = Object.fromEntries(Object.entries(durations).map(([f, ms]) => [`g/${f}`, ms]))
  writeFileSync(join(root, 'artifacts', 'durations.json'), JSON.stringify(times))
  return root
}

function run(root: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUN, 'g'], {
      cwd: ROOT,
      env: {
        ...process.env,
        SERVICE_TEST_SUITES_DIR: root,
        SERVICE_TEST_ARTIFACTS_DIR: join(root, 'artifacts'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('close', (code) => resolve({ code, out }))
  })
}

const passing = `import { test } from 'uvu'\ntest('passes', () => {})\ntest.run()\n`

test.after(() => rmSync(dir, { recursive: true, force: true }))

test('a file that leaves a process holding its output, or queues no test, is counted and the run still ends', async () => {
  const pidFile = join(dir, 'held.pid')
  const root = suites('held', {
    'leaves-output-open.test.js':
      `import { test } from 'uvu'\nimport { spawn } from 'node:child_process'\n` +
      `import { writeFileSync } from 'node:fs'\n` +
      `test('starts a process that keeps its output', () => {\n` +
      `  const c = spawn('sleep', ['60'], { stdio: 'inherit', detached: true })\n` +
      `  c.unref()\n  writeFileSync(${JSON.stringify(pidFile)}, String(c.pid))\n})\ntest.run()\n`,
    'no-test.test.js': `import 'uvu'\n`,
    'passes.test.js': passing,
  })
  try {
    const r = await run(root, { SERVICE_TEST_DRAIN_MS: '300' })
    const held = Number(readFileSync(pidFile, 'utf8'))
    assert.ok(alive(held), 'the run ended while the process still held the output')
    assert.is(r.code, 1, r.out)
    assert.match(
      r.out,
      'g/leaves-output-open.test.js: a process it started still held its output 0.3 s after it exited',
    )
    assert.match(r.out, 'g/leaves-output-open.test.js: 1 passed, 0 failed')
    assert.match(r.out, 'g/no-test.test.js: 0 passed, 1 failed')
    assert.match(r.out, 'g/passes.test.js: 1 passed, 0 failed')
    assert.is(r.out.trimEnd().split('\n').at(-1), '2 passed, 1 failed')
    assert.is(readFileSync(join(root, 'artifacts', 'summary.txt'), 'utf8'), '2 passed, 1 failed\n')
  } finally {
    try {
      process.kill(-Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
    } catch {}
  }
})

test("past the run's deadline a running file is stopped and the rest are not run, each one failure", async () => {
  const root = suites(
    'deadline',
    {
      'hangs.test.js':
        `import { test } from 'uvu'\n` +
        `test('never ends', () => new Promise(() => setInterval(() => {}, 1000)))\ntest.run()\n`,
      'late.test.js': passing,
    },
    // Longest first: the hanging file takes the one place, the other waits behind it.
    { 'hangs.test.js': 2000, 'late.test.js': 1000 },
  )
  const r = await run(root, { SERVICE_TEST_JOBS: '1', SERVICE_TEST_DEADLINE_MS: '1500' })
  assert.is(r.code, 1, r.out)
  assert.match(r.out, "g/hangs.test.js: stopped at the run's deadline (SERVICE_TEST_DEADLINE_MS)")
  assert.match(r.out, 'g/hangs.test.js: 0 passed, 1 failed')
  assert.match(r.out, "g/late.test.js: not run, the run's deadline (SERVICE_TEST_DEADLINE_MS) had passed")
  assert.is(r.out.trimEnd().split('\n').at(-1), '0 passed, 2 failed')
})

test.run()
