import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/home.js'

const FILE = join(ROOT, 'test-artifacts', 'reliability.json')

/** The reliability suite's figures, gathered across its files into one table for the README. */
export function recordFigure(what: string, value: string) {
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true })
  const all: Record<string, string> = existsSync(FILE) ? JSON.parse(readFileSync(FILE, 'utf8')) : {}
  all[what] = value
  writeFileSync(FILE, JSON.stringify(all, null, 1))
  writeFileSync(join(ROOT, 'test-artifacts', 'reliability.md'), ['| what | figure |', '|---|---|', ...Object.entries(all).map(([k, v]) => `| ${k} | ${v} |`)].join('\n') + '\n')
}
