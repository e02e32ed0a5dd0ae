import { removeBenchHomes, type Figure } from './lib.js'

/** `npm run bench`: every benchmark, each figure beside its target and the ratio to its floor; exits non-zero when
 * a target is missed (a figure kept for information never counts). `npm run bench -- <name>...` runs only those. */
const ALL = [
  'cli',
  'wake',
  'store',
  'api',
  'start',
  'reap',
  'park',
  'transcript',
  'deck',
  'hosts',
  'local-lanes',
] as const
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : [...ALL]
const figures: Figure[] = []
const started = Date.now()
const unknown = chosen.find((name) => !(ALL as readonly string[]).includes(name))
if (unknown) {
  console.error(`unknown benchmark ${unknown}; one of ${ALL.join(', ')}`)
  process.exit(1)
}
try {
  for (const name of chosen) {
    const t0 = Date.now()
    const mod = (await import(`./${name}.js`)) as { bench: () => Promise<Figure[]> }
    const got = await mod.bench()
    figures.push(...got)
    for (const f of got) print(f)
    console.log(`  (${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s)`)
  }
} finally {
  const removing = Date.now()
  await removeBenchHomes()
  console.log(`  (removing the bench homes: ${((Date.now() - removing) / 1000).toFixed(1)} s)`)
}

function print(f: Figure) {
  const ratio = f.floor
    ? `  ${(f.value / f.floor.value).toFixed(2)}× of ${f.floor.what} (${f.floor.value.toFixed(1)} ${f.unit})`
    : ''
  const verdict = f.informational ? (f.ok ? 'info' : 'info (not met)') : f.ok ? 'ok  ' : 'MISS'
  const target = f.informational ? `for information, the issue's first target ${f.target}` : `target ${f.target}`
  console.log(
    `${verdict}  ${f.what}: ${f.value.toFixed(f.unit === 'req/s' ? 0 : 1)} ${f.unit}  ${target}${ratio}` +
      `${f.note ? `  [${f.note}]` : ''}`,
  )
}

const judged = figures.filter((f) => !f.informational)
const missed = judged.filter((f) => !f.ok)
const info = figures.length - judged.length
console.log(
  `\n${judged.length - missed.length} of ${judged.length} targets met` +
    `${info ? ` (and ${info} figures for information)` : ''} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
)
process.exit(missed.length ? 1 : 0)
