import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeServiceHome, serviceEnv } from '../fixtures/service-home.js'
import { Limiter } from '../kernel/queue/serial.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const SVC = join(ROOT, 'dist', 'cli', 'main.js')

/** One measured figure beside its target and, where there is one, the floor measured in the same run. */
export interface Figure {
  what: string
  value: number
  unit: string
  /** The target as text, and whether the value meets it. */
  target: string
  ok: boolean
  /** A target kept for information only (the first ratio, replaced by one against a measured floor): printed
   * with whether it is met, never counted as a miss. */
  informational?: true
  floor?: { what: string; value: number }
  note?: string
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}

const leftBehind: string[] = []

/** Remove the homes of every benchmark of this run, once all have run. Deleting many files at once makes ext4
 * slow to create files for minutes after (its inode allocator steps over every recently freed inode: a profile of
 * 20 000 file creations right after such a delete shows most of 6 s of system time in recently_deleted, against
 * 0.7 s on a quiet disk), and the benchmarks that follow would measure that instead of themselves. */
export async function removeBenchHomes(): Promise<void> {
  const homes = leftBehind.splice(0)
  // The disk waits on each freed block (it is mounted with discard), so removals side by side finish sooner: four
  // at once took 3.1 s for 40 000 files where one at a time took 6.5 s. The lanes and checkouts lie four levels down.
  const four = new Limiter(4)
  const rm = (path: string) =>
    new Promise<void>((resolve) => spawn('rm', ['-rf', '--', path], { stdio: 'ignore' }).on('close', () => resolve()))
  await Promise.all(homes.flatMap((dir) => entriesAt(dir, 4)).map((path) => four.run(() => rm(path))))
  for (const dir of homes) rmSync(dir, { recursive: true, force: true })
}

/** The paths `depth` levels below `dir`; files and empty folders above that go in the final removal. */
function entriesAt(dir: string, depth: number): string[] {
  if (depth === 0) return [dir]
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names.flatMap((n) => entriesAt(join(dir, n), depth - 1))
}

/** A throwaway HOME with its service home, under the user's home (lanes roots may not lie under /tmp). */
export function benchHome(label: string) {
  const { dir, home, service } = makeServiceHome(join(homedir(), '.svc-bench-homes'), label)
  const env = serviceEnv(home, service)
  return {
    dir,
    home,
    service,
    env,
    /** Stop the kernel now; the files go at the end of the run (removeBenchHomes). */
    cleanup() {
      spawnSync(process.execPath, [SVC, 'kernel', 'stop'], { env })
      leftBehind.push(dir)
    },
  }
}

/** Wall time of one run of a command, in ms. */
export function timeCommand(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: 'ignore' })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - t0) / 1e6)
        : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`)),
    )
  })
}

/** Write out what earlier runs left to write (sync), before a timed run: otherwise a run pays for the one before
 * it. After a checkout of 20 000 files, whichever ran next took 77–179 ms longer. */
export function flushWrites(): void {
  spawnSync('sync')
}

/** timeCommand, once what earlier runs left to write is written (flushWrites, untimed). */
export function timeFlushed(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<number> {
  flushWrites()
  return timeCommand(cmd, args, opts)
}

/** Wall time of `n` calls at once, in ms. */
export async function wallTimeOfAll(n: number, call: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = Date.now()
  await Promise.all(Array.from({ length: n }, (_, i) => call(i)))
  return Date.now() - t0
}

/** Median wall time of `runs` runs of each, alternating with the floor so both see the same machine state, and
 * alternating which goes first: the second of a pair meets the caches the first warmed and the writes it left to
 * flush. Each is given the number of its run. */
export async function versus(
  runs: number,
  a: (i: number) => Promise<number>,
  b: (i: number) => Promise<number>,
): Promise<{ a: number; b: number; as: number[]; bs: number[] }> {
  const as: number[] = []
  const bs: number[] = []
  for (let i = 0; i < runs; i++) {
    if (i % 2) bs.push(await b(i))
    as.push(await a(i))
    if (i % 2 === 0) bs.push(await b(i))
  }
  return { a: median(as), b: median(bs), as, bs }
}

export const run = (
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
) => {
  const r = spawnSync(cmd, args, {
    env: opts.env,
    cwd: opts.cwd,
    input: opts.input,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}
