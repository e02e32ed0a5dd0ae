import { mkdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/home.js'

const DIR = join(ROOT, 'test-artifacts')
const FILE = join(DIR, 'reliability.json')
const LOCK = join(DIR, 'reliability.lock')

/** The reliability suite's figures, gathered across its files into one table for the README. The files run side by
 * side, so each update holds a lock (a directory made exclusively) and replaces both files whole. */
export function recordFigure(what: string, value: string) {
  mkdirSync(DIR, { recursive: true })
  withLock(() => {
    const all: Record<string, string> = existsSync(FILE) ? JSON.parse(readFileSync(FILE, 'utf8')) : {}
    all[what] = value
    replace(FILE, JSON.stringify(all, null, 1))
    replace(
      join(DIR, 'reliability.md'),
      ['| what | figure |', '|---|---|', ...Object.entries(all).map(([k, v]) => `| ${k} | ${v} |`)].join('\n') + '\n',
    )
  })
}

function replace(path: string, text: string) {
  writeFileSync(`${path}.${process.pid}`, text)
  renameSync(`${path}.${process.pid}`, path)
}

function withLock(fn: () => void) {
  for (let tries = 0; ; tries++) {
    try {
      mkdirSync(LOCK)
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      // A holder that died mid-update leaves the lock behind: an update takes milliseconds, so 10 s means it is gone.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 10_000) rmdirSync(LOCK)
      } catch {}
      if (tries > 2000) throw new Error(`${LOCK} held for too long`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
    }
  }
  try {
    fn()
  } finally {
    rmdirSync(LOCK)
  }
}
