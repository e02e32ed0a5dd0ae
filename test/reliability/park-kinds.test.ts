import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { git, until } from '../helpers/home.js'
import { kernelApi } from '../e2e/api-kit.js'
import { content, prng, type Rng } from '../e2e/dirty-kit.js'
import { World, alive, filesOf } from '../e2e/lane-views-kit.js'
import { reapKit } from '../e2e/reap-kit.js'
import { recordFigure } from './figures.js'
import { caseCount } from '../helpers/cases.js'

// Issue 16: each kind of dirty tree `git status` misreads, parked exactly. For every case: a plain reap is refused
// and changes no byte; with --park, the patch applied to a fresh checkout of the branch gives back every byte of
// every file on disk (what the branch's own ignore rules hide aside). Two cases of each kind in every run (four cases
// side by side), ten in the nightly run (SERVICE_TEST_FULL=1); PARK_KIND_CASES changes the count
// per kind. What varies within a kind beyond the random bytes (the hiding rule, where the sparse lane writes) is
// chosen by the case's number or written in every case, so that two cases of a kind meet each variant.

const CASES = caseCount('PARK_KIND_CASES', { quick: 2, full: 10 })
const SEED = Number(process.env.PARK_KIND_SEED ?? Date.now() % 2 ** 31)
const SPARSE = ['/src/']
const BASE: Record<string, string> = {
  '.gitattributes': '* text=auto\n',
  '.gitignore': 'node_modules/\n',
  'docs/guide.md': 'guide\n',
  'src/lib/util.js': 'export const util = 1\n',
  'src/data.txt': 'one\ntwo\n',
}

let w: World
const { applied } = reapKit(() => w)

/** A file of the branch that this lane has on disk (a sparse lane has only those under src/). */
function trackedFile(dir: string, rng: Rng): string {
  const files = git(dir, 'ls-files')
    .split('\n')
    .filter((f) => existsSync(join(dir, f)) && lstatSync(join(dir, f)).isFile() && !f.startsWith('.'))
  return rng.pick(files)
}

function write(dir: string, path: string, bytes: Buffer | string) {
  mkdirSync(dirname(join(dir, path)), { recursive: true })
  writeFileSync(join(dir, path), bytes)
}

/** CRLF text that normalising would change. */
const crlf = (rng: Rng) =>
  Buffer.from(Array.from({ length: 1 + rng.int(5) }, (_, i) => `line ${i} ${rng.int(1000)}\r\n`).join(''))

/** Each kind: the change a lane makes; returns a process to end before the park, when it starts one. */
const KINDS: Record<string, (dir: string, rng: Rng, i: number) => Promise<number | undefined> | undefined> = {
  'assume-unchanged': (dir, rng) => {
    const f = trackedFile(dir, rng)
    write(dir, f, content(rng))
    git(dir, 'update-index', '--assume-unchanged', f)
    return undefined
  },
  'skip-worktree': (dir, rng) => {
    const f = trackedFile(dir, rng)
    write(dir, f, content(rng))
    git(dir, 'update-index', '--skip-worktree', f)
    return undefined
  },
  CRLF: (dir, rng, i) => {
    write(dir, `notes ${i}.txt`, crlf(rng))
    write(dir, trackedFile(dir, rng), crlf(rng))
    return undefined
  },
  'hidden-by-agent': (dir, rng, i) => {
    write(dir, `hidden-${i}/.gitignore`, ['*\n', '*\n!.gitignore\n'][i % 2])
    write(dir, `hidden-${i}/work.txt`, content(rng))
    write(dir, `private-${i}.txt`, content(rng))
    appendFileSync(join(git(dir, 'rev-parse', '--git-common-dir'), 'info', 'exclude'), `/private-${i}.txt\n`)
    return undefined
  },
  'open file': async (dir, _rng, i) => {
    const log = join(dir, `log-${i}.txt`)
    const script =
      "const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'a'); let i = 0; setInterval(() => " +
      'fs.writeSync(fd, `line ${++i}\\n`), 5)'
    const writer = spawn(process.execPath, ['-e', script, log], { cwd: w.h.home, stdio: 'ignore', detached: true })
    await until(() => existsSync(log) && readFileSync(log).length > 0, 'the writer started')
    return writer.pid
  },
  // Last: the lanes of this kind are launched with sparse_checkout set.
  // Outside the patterns at the top, in a directory of the branch the checkout leaves out, and in a new one.
  sparse: (dir, rng, i) => {
    for (const path of [`outside-${i}.txt`, `docs/new ${i}.md`, `deep/er/${i}.bin`]) write(dir, path, content(rng))
    return undefined
  },
}

/** Files the lane's checkout leaves out: those of the branch outside the sparse patterns. */
function leftOutBySparse(dir: string): Set<string> {
  return new Set(
    git(dir, 'ls-files', '-t')
      .split('\n')
      .filter((l) => l.startsWith('S '))
      .map((l) => l.slice(2))
      .filter((f) => !existsSync(join(dir, f))),
  )
}

async function runCase(kind: string, i: number): Promise<void> {
  const rng = prng(SEED + i)
  const api = kernelApi(w.h)
  const key = `k${i}`
  const { name, dir } = await w.idleLane(key)
  write(dir, `node_modules/dep-${i}/index.js`, 'x'.repeat(100 + i)) // ignored by the branch: left out
  const writer = await KINDS[kind](dir, rng, i)
  try {
    const before = filesOf(dir)
    const refused = await api.post(`/api/lanes/${name}/reap`, { park: false })
    assert.is(refused.status, 409, JSON.stringify(refused.body))
    if (writer) {
      assert.match(refused.body.error.message, `${writer} (`)
      assert.match(refused.body.error.message, `holding ${join(dir, `log-${i}.txt`)}`)
      const again = await api.post(`/api/lanes/${name}/reap`, { park: true })
      assert.is(again.status, 409, 'refused with --park too while the file is open')
      process.kill(writer, 'SIGKILL')
      await until(() => !alive(writer), 'the writer gone')
    } else {
      assert.match(refused.body.error.message, 'has uncommitted changes')
      assert.equal(filesOf(dir), before, 'a refused reap changes no byte')
    }
  } finally {
    if (writer && alive(writer)) process.kill(writer, 'SIGKILL')
  }
  const onDisk = Object.fromEntries(Object.entries(filesOf(dir, false)).filter(([p]) => !p.startsWith('node_modules/')))
  const outside = leftOutBySparse(dir)
  const parked = await api.post(`/api/lanes/${name}/reap`, { park: true })
  assert.is(parked.status, 200, JSON.stringify(parked.body))
  assert.match(parked.body.warnings.join('\n'), `node_modules/ (`)
  const back = applied(parked.body.parked.patch, `r1/${key}`, key)
  for (const p of Object.keys(back)) if (!(p in onDisk)) assert.ok(outside.has(p), `${p} came back but was not on disk`)
  assert.equal(
    Object.fromEntries(Object.entries(back).filter(([p]) => p in onDisk)),
    onDisk,
    `${kind}, case ${i}, seed ${SEED}`,
  )
}

test.before(async () => {
  w = await new World('park-kinds').begin()
  for (const [p, c] of Object.entries(BASE)) write(w.checkout, p, c)
  git(w.checkout, 'add', '-A')
  git(w.checkout, 'commit', '-qm', 'attributes, ignore rules, more files')
  git(w.checkout, 'push', '-q', 'origin', 'main')
})
test.after(async () => {
  await w.stop()
})

test(`each dirty-tree kind git status misreads, ${CASES} cases each: refused without --park, parked exactly with it`, async () => {
  const parked: Record<string, number> = {}
  const failures: string[] = []
  const run = async (cases: [string, number][]) => {
    // Four cases at a time.
    for (let k = 0; k < cases.length; k += 4) {
      const batch = cases.slice(k, k + 4)
      const results = await Promise.allSettled(batch.map(([kind, n]) => runCase(kind, n)))
      results.forEach((r, b) => {
        if (r.status === 'fulfilled') parked[batch[b][0]]++
        else failures.push((r.reason as Error).message)
      })
    }
  }
  const cases = Object.keys(KINDS).flatMap((kind, k) => {
    parked[kind] = 0
    return Array.from({ length: CASES }, (_, c): [string, number] => [kind, k * CASES + c])
  })
  // Every kind but the sparse one first, their cases side by side; then the sparse lanes, launched once the project
  // sets sparse_checkout.
  await run(cases.filter(([kind]) => kind !== 'sparse'))
  const roles = Object.fromEntries(
    ['builder', 'critic', 'verifier', 'play', 'orchestrator'].map((r) => [
      r,
      { model: `model-${r}`, harness: 'shell' },
    ]),
  )
  writeProjectsYaml(w.h.service, w.s.project, { gauntlet: { sparse_checkout: SPARSE, roles } })
  await run(cases.filter(([kind]) => kind === 'sparse'))
  recordFigure(
    'dirty-tree kinds parked exactly, byte for byte (each also refused without --park, no byte changed)',
    Object.entries(parked)
      .map(([k, n]) => `${k} ${n}/${CASES}`)
      .join(', '),
  )
  assert.equal(failures, [], `seed ${SEED}`)
  assert.is(readdirSync(w.lanes).length, 0, 'every lane reaped')
})

test.run()
