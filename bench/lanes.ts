import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import type { ConversationRecord } from '../kernel/domain/conversation.js'
import { convFiles } from '../kernel/io/home.js'
import { processStartTime } from '../kernel/io/procs.js'
import { benchHome, median, type Figure } from './lib.js'

/** Lanes in the bench (BENCH_LANES sets fewer for a quick look), in runs of 50; a tenth have a live harness. */
const LANES = Number(process.env.BENCH_LANES ?? 1000)
const PER_RUN = 50

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
    },
  })

/** The kernel at LANES real lanes: each a builder worktree on disk (its own branch), a tenth with a live harness
 * process. Measures the data the deck draws from (the whole tree; one run) and the kernel's CPU while idle with a
 * deck's event stream open. The update after a report is bench/deck.ts's. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('lanes')
  const sleepers: ReturnType<typeof spawn>[] = []
  try {
    const origin = join(h.home, 'origin.git')
    const checkout = join(h.home, 'src', 'bench')
    const root = join(h.home, 'src', 'bench-lanes')
    mkdirSync(checkout, { recursive: true })
    mkdirSync(root, { recursive: true })
    git(h.home, 'init', '-q', '--bare', origin)
    git(checkout, 'init', '-q', '-b', 'main')
    for (const d of ['src/a', 'src/b', 'test']) mkdirSync(join(checkout, d), { recursive: true })
    for (const f of ['README.md', 'src/a/one.ts', 'src/b/two.ts', 'test/t.ts'])
      writeFileSync(join(checkout, f), `${f}\n`)
    git(checkout, 'add', '-A')
    git(checkout, 'commit', '-qm', 'start')
    git(checkout, 'remote', 'add', 'origin', origin)
    git(checkout, 'push', '-q', '-u', 'origin', 'main')
    writeFileSync(
      join(h.service, 'projects.yaml'),
      `bench:\n  path: ${checkout}\n  gauntlet:\n    lanes_root: ${root}\n`,
    )
    const t0 = Date.now()
    const now = Date.now() - 3600_000
    const write = (rec: ConversationRecord) => {
      const files = convFiles(h.service, rec.name)
      mkdirSync(files.dir, { recursive: true })
      writeFileSync(files.record, JSON.stringify(rec))
    }
    write({ id: '1', name: 'root', createdAt: now, harness: 'none', cwd: checkout, project: 'bench' })
    for (let i = 0; i < LANES; i++) {
      const run = `r${Math.floor(i / PER_RUN)}`
      const key = `k${i % PER_RUN}`
      const dir = `${run}-${key}`
      git(checkout, 'worktree', 'add', '-q', '-b', `${run}/${key}`, join(root, dir), 'main')
      const name = `${run}-${key}-builder-i1`
      write({
        id: String(i + 2),
        name,
        createdAt: now + i,
        parent: '1',
        harness: 'shell',
        cwd: join(root, dir),
        project: 'bench',
        lane: { run, key, role: 'builder', dir, root, iteration: 1, repo: checkout, branch: `${run}/${key}` },
      })
      const files = convFiles(h.service, name)
      if (i % 10 === 0) {
        // A live harness: a process whose pid and start time the state names.
        const p = spawn('sleep', ['600'], { stdio: 'ignore' })
        sleepers.push(p)
        const id = { pid: p.pid!, start: processStartTime(p.pid!) ?? '' }
        const state = {
          runner: id,
          harness: { ...id, at: now + i },
          phase: { value: 'working', source: 'bench', at: now + i },
        }
        writeFileSync(files.state, JSON.stringify(state))
      } else {
        const state = {
          runner: { pid: 1, start: 'gone' },
          ended: { at: now + i, exitCode: 0, signal: null, source: 'process exit' },
        }
        writeFileSync(files.state, JSON.stringify(state))
      }
    }
    console.log(`  (${LANES} worktrees and lanes written in ${((Date.now() - t0) / 1000).toFixed(1)} s)`)

    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const base = `http://127.0.0.1:${k.port}`
    const auth = { authorization: `Bearer ${k.token}` }
    const get = async (path: string) => {
      const t = performance.now()
      const res = await fetch(base + path, { headers: auth })
      const body = await res.text()
      if (!res.ok) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`)
      return { ms: performance.now() - t, body }
    }
    // The kernel reads every worktree once after it starts: the first answers wait for that.
    const warm = performance.now()
    await get('/api/tree')
    const warmMs = performance.now() - warm

    const times = async (path: string, n = 7) => {
      const xs: number[] = []
      for (let i = 0; i < n; i++) {
        // Past the life of a cached answer (500 ms): each is computed anew, as after a change.
        await new Promise((r) => setTimeout(r, 600))
        xs.push((await get(path)).ms)
      }
      return xs
    }
    const tree = await times('/api/tree')
    const oneRun = await times('/api/tree?run=r3')
    const lanesOfRun = await times('/api/lanes?run=r3')

    // Idle with a deck's event stream open: the kernel's CPU over 5 s.
    const ctl = new AbortController()
    void fetch(`${base}/api/events`, { headers: auth, signal: ctl.signal })
      .then((r) => r.body?.getReader().read())
      .catch(() => {})
    await new Promise((r) => setTimeout(r, 1000))
    const cpu = () => {
      const f = readFileSync(`/proc/${k.pid}/stat`, 'utf8').split(') ')[1].split(' ')
      return Number(f[11]) + Number(f[12])
    }
    const c0 = cpu()
    await new Promise((r) => setTimeout(r, 5000))
    const idlePct = (cpu() - c0) / 5 // clock ticks of 10 ms over 5 s, as a percentage of one core
    ctl.abort()

    const note = (xs: number[]) => `median of ${xs.length}: ${xs.map((x) => x.toFixed(0)).join(', ')} ms`
    const fig = (what: string, xs: number[], target: number, extra = ''): Figure => {
      const value = median(xs)
      return { what, value, unit: 'ms', target: `≤ ${target} ms`, ok: value <= target, note: note(xs) + extra }
    }
    return [
      fig(
        `${LANES} real lanes: GET /api/tree (the deck's first render draws from it)`,
        tree,
        500,
        `; the first, with every worktree read: ${warmMs.toFixed(0)} ms`,
      ),
      fig(`${LANES} real lanes: GET /api/tree?run= of one run of ${PER_RUN}`, oneRun, 50),
      fig(`${LANES} real lanes: GET /api/lanes?run= of one run of ${PER_RUN}`, lanesOfRun, 50),
      {
        what: `${LANES} real lanes: kernel CPU while idle with the deck's event stream open`,
        value: idlePct,
        unit: '% of a core',
        target: '≤ 2 %',
        ok: idlePct <= 2,
      },
    ]
  } finally {
    for (const p of sleepers) p.kill()
    h.cleanup()
  }
}
