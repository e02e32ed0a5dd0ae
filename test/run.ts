import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync, readFileSync, rmSync, rmdirSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TEST_HOMES } from './helpers/home.js'
import { withoutExtraCertificates } from '../fixtures/service-home.js'
import { suiteOutcome, failureRecap } from './helpers/suite-outcome.js'

/** Runs every uvu suite file under dist/test, each in its own process so that one crash cannot hide the others'
 * counts (a pure group, which starts nothing, and the browser group, whose files share one browser, each run all
 * their files in one process: a Node start costs more than most of their files), several side by side (most suites
 * wait on the processes they drive), prints each file's report whole when it ends, then the time of each group, then
 * the one line CI reads: `N passed, N failed`.
 * `node dist/test/run.js [group ...]`; SERVICE_TEST_JOBS sets how many files run at once. */
const ALL_GROUPS = ['lint', 'domain', 'io', 'handlers', 'cli', 'e2e', 'reliability', 'browser']
/** The checks that are no uvu suite, each counted as one test: the style of every source file, and the layering
 * (DESIGN.md 2) of every import in the build. */
const CHECKS: Record<string, string[]> = {
  // A file whose bytes the last run of this checkout found formatted is not formatted again (the cache is keyed by
  // the bytes, prettier's version and its options); a fresh clone, as CI's, checks every file.
  format: [
    join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
    '--check',
    '--cache',
    '--cache-strategy',
    'content',
    '--cache-location',
    join('test-artifacts', 'prettier-cache'),
    '**/*.{ts,tsx}',
  ],
  // The formatter's width, also for what it does not wrap: comments, strings and templates' text.
  'line-length': [join(ROOT, 'dist', 'test', 'lint', 'line-length.js')],
  imports: [
    join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
    '--config',
    '.dependency-cruiser.cjs',
    'dist/cli',
    'dist/kernel',
    'dist/handlers',
  ],
}
/** Where the groups' folders are, and where the run writes its summary, times and meters (both moved only by the
 * runner's own test, which runs it on suites of its own). */
const SUITES = process.env.SERVICE_TEST_SUITES_DIR || join(ROOT, 'dist', 'test')
const ARTIFACTS = process.env.SERVICE_TEST_ARTIFACTS_DIR || join(ROOT, 'test-artifacts')
const groups = (process.argv.length > 2 ? process.argv.slice(2) : ALL_GROUPS).filter(
  (g) => g === 'lint' || existsSync(join(SUITES, g)),
)
/** Groups that run as one uvu process: those whose files start no process, server or kernel, and the browser's,
 * whose files share one browser (test/helpers/deck-browser.ts; each suite in a context and a home of its own): a
 * Node start, the browser driver's load and a browser's launch cost more than most of their files. */
const ONE_PROCESS = new Set(['domain', 'handlers', 'browser'])
const JOBS = Math.max(1, Number(process.env.SERVICE_TEST_JOBS) || 4)
/** A suite file still running after this long is stopped and counted as failed, so that a hang cannot stall CI. */
const FILE_LIMIT_MS = 10 * 60 * 1000
/** The whole run's budget, when one is set (CI's script sets it from the time it has left): past it, files still
 * running are stopped and files not begun are not run, each counted as one failure, so that the run still ends with
 * its line in time. */
const deadlineAt = Date.now() + (Number(process.env.SERVICE_TEST_DEADLINE_MS) || Infinity)
/** A suite process that has exited is read to the end for this long at most: a process it left running may still
 * hold its output open, and waiting for that would stall the run. */
const DRAIN_MS = Number(process.env.SERVICE_TEST_DRAIN_MS) || 5_000
const DURATIONS = join(ARTIFACTS, 'durations.json')
const uvu = join(ROOT, 'node_modules', 'uvu', 'bin.js')
const CPU_METER = join(ROOT, 'dist', 'test', 'helpers', 'cpu-meter.js')

interface SuiteFile {
  group: string
  /** A file's name, or every file of a group run as one process. */
  file: string
}
const WHOLE_GROUP = 'all files'
interface Outcome {
  passed: number
  failed: number
  ms: number
  /** Processor time of the file's process and the children it waited for (unknown for a process that did not end
   * by itself). */
  cpuMs?: number
  /** The file's report, kept for the recap at the end when a test of it failed. */
  report?: string
}

const files: SuiteFile[] = groups.flatMap((group) =>
  group === 'lint'
    ? Object.keys(CHECKS).map((file) => ({ group, file }))
    : ONE_PROCESS.has(group)
      ? [{ group, file: WHOLE_GROUP }]
      : readdirSync(join(SUITES, group))
          .filter((f) => f.endsWith('.test.js'))
          .sort()
          .map((file) => ({ group, file })),
)
// Longest first, as the last run measured them, else as `test/durations.json` has them (a measured run's times,
// kept in the repository so that a fresh clone's first run, as CI's, starts its slowest files first too); a file
// neither names is guessed by its group (a reliability file about a minute, an end-to-end one half that).
const readTimes = (path: string): Record<string, number> => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return {}
  }
}
const lastMs: Record<string, number> = { ...readTimes(join(ROOT, 'test', 'durations.json')), ...readTimes(DURATIONS) }
const key = (s: SuiteFile) => `${s.group}/${s.file}`
const GROUP_GUESS_MS: Record<string, number> = { reliability: 60_000, e2e: 30_000, browser: 30_000 }
const guess = (s: SuiteFile) => lastMs[key(s)] ?? GROUP_GUESS_MS[s.group] ?? 1_000
const queue = [...files].sort((a, b) => guess(b) - guess(a))

const suitePids: number[] = []
const outcomes = new Map<string, Outcome>()

function runFile(s: SuiteFile): Promise<void> {
  const started = Date.now()
  return new Promise((resolve) => {
    const pattern = s.file === WHOLE_GROUP ? '\\.test\\.js$' : `^${s.file.replace(/\./g, '\\.')}$`
    const argv = [
      '--import',
      CPU_METER,
      ...(s.group === 'lint' ? CHECKS[s.file] : [uvu, join(SUITES, s.group), pattern]),
    ]
    const cpuFile = join(ARTIFACTS, `cpu-${process.pid}-${s.group}-${s.file.replace(/\W/g, '_')}`)
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...withoutExtraCertificates(process.env), SERVICE_TEST_CPU_FILE: cpuFile },
    })
    if (child.pid) suitePids.push(child.pid)
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const byDeadline = deadlineAt - started < FILE_LIMIT_MS
    const limit = setTimeout(
      () => {
        out += byDeadline
          ? `\n${key(s)}: stopped at the run's deadline (SERVICE_TEST_DEADLINE_MS)\n`
          : `\n${key(s)}: stopped after ${FILE_LIMIT_MS / 60_000} minutes\n`
        child.kill('SIGKILL')
      },
      Math.max(0, Math.min(FILE_LIMIT_MS, deadlineAt - started)),
    )
    let drain: NodeJS.Timeout | undefined
    let ended = false
    const end = (exit: number) => {
      if (ended) return
      ended = true
      clearTimeout(limit)
      clearTimeout(drain)
      const ms = Date.now() - started
      const counted = s.group === 'lint' ? { passed: exit ? 0 : 1, failed: exit ? 1 : 0 } : suiteOutcome(out, exit)
      const cpuMs = readCpu(cpuFile)
      outcomes.set(key(s), { ...counted, ms, cpuMs, ...(counted.failed ? { report: out } : {}) })
      process.stdout.write(out)
      const cpu = cpuMs === undefined ? '' : ` (processor ${(cpuMs / 1000).toFixed(1)} s)`
      console.log(
        `${key(s)}: ${counted.passed} passed, ${counted.failed} failed in ${(ms / 1000).toFixed(1)} s${cpu}\n`,
      )
      resolve()
    }
    const exitOf = (code: number | null, signal: NodeJS.Signals | null) => code ?? (signal ? 1 : 0)
    child.on('close', (code, signal) => end(exitOf(code, signal)))
    child.on('exit', (code, signal) => {
      if (ended) return
      drain = setTimeout(() => {
        out += `\n${key(s)}: a process it started still held its output ${DRAIN_MS / 1000} s after it exited\n`
        child.stdout.destroy()
        child.stderr.destroy()
        end(exitOf(code, signal))
      }, DRAIN_MS)
    })
    child.on('error', (e) => {
      out += `\n${key(s)}: could not run: ${e.message}\n`
      end(1)
    })
  })
}

/** A file the run's deadline left no time for: counted as one failure, with a line saying so. */
function notRun(s: SuiteFile): void {
  const report = `${key(s)}: not run, the run's deadline (SERVICE_TEST_DEADLINE_MS) had passed\n`
  outcomes.set(key(s), { passed: 0, failed: 1, ms: 0, report })
  console.log(report)
}

/** What the suite process's meter wrote, once read (the file is removed). */
function readCpu(file: string): number | undefined {
  try {
    const ms = Number(readFileSync(file, 'utf8'))
    rmSync(file, { force: true })
    return Number.isFinite(ms) ? ms : undefined
  } catch {
    return undefined
  }
}

mkdirSync(ARTIFACTS, { recursive: true })
const began = Date.now()
await Promise.all(
  Array.from({ length: Math.min(JOBS, queue.length) }, async () => {
    for (let s = queue.shift(); s; s = queue.shift()) await (Date.now() < deadlineAt ? runFile(s) : notRun(s))
  }),
)

// Only the homes of this run's suites (named <label>-<pid>-<random>): other runs may be using theirs right now.
for (const name of existsSync(TEST_HOMES) ? readdirSync(TEST_HOMES) : [])
  if (suitePids.some((pid) => name.includes(`-${pid}-`)))
    rmSync(join(TEST_HOMES, name), { recursive: true, force: true })
try {
  rmdirSync(TEST_HOMES) // only when empty
} catch {}

let passed = 0
let failed = 0
for (const o of outcomes.values()) {
  passed += o.passed
  failed += o.failed
}
// The failures again, at the end, where a reader of only the last page of a long log still sees them.
for (const [name, o] of outcomes) if (o.report) console.log(failureRecap(name, o.report))
for (const group of groups) {
  const own = files.filter((s) => s.group === group).map((s) => outcomes.get(key(s))!)
  const sum = own.reduce((t, o) => t + o.ms, 0)
  const cpu = own.reduce((t, o) => t + (o.cpuMs ?? 0), 0)
  console.log(
    `${group}: ${own.length} files, ${(sum / 1000).toFixed(1)} s of suite time, ${(cpu / 1000).toFixed(1)} s of ` +
      `processor time`,
  )
}
const cpuAll = [...outcomes.values()].reduce((t, o) => t + (o.cpuMs ?? 0), 0)
console.log(
  `${files.length} files, ${JOBS} at a time, in ${((Date.now() - began) / 1000).toFixed(1)} s (` +
    `${(cpuAll / 1000).toFixed(1)} s of processor time)`,
)
const line = `${passed} passed, ${failed} failed`
mkdirSync(ARTIFACTS, { recursive: true })
writeFileSync(
  DURATIONS,
  JSON.stringify({ ...lastMs, ...Object.fromEntries([...outcomes].map(([k, o]) => [k, o.ms])) }, null, 1) + '\n',
)
writeFileSync(join(ARTIFACTS, 'summary.txt'), line + '\n')
console.log(line)
process.exit(failed ? 1 : 0)
