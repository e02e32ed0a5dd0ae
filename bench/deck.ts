import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { chromium, type Page } from 'playwright-core'
import { ensureKernel } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import type { LaneView } from '../kernel/domain/lane.js'
import { CHROMIUM_ARGS, chromiumExecutable } from '../test/helpers/chromium.js'
import { benchHome, median, run, SVC, type Figure } from './lib.js'
import { PER_RUN, writeRealLanes } from './real-lanes.js'

/** Lanes in the bench (BENCH_LANES sets fewer for a quick look). */
const LANES = Number(process.env.BENCH_LANES ?? 1000)
/** Of them, lanes started through `svc lane start` with a shell harness, each filing one report when told. */
const LIVE = 5
const LOADS = 5
const TIMES = 7

const exec = promisify(execFile)
const note = (xs: number[]) => `median of ${xs.length}: ${xs.map((x) => x.toFixed(0)).join(', ')} ms`
const fig = (what: string, xs: number[], target: number, extra = ''): Figure => {
  const value = median(xs)
  return { what, value, unit: 'ms', target: `≤ ${target} ms`, ok: value <= target, note: note(xs) + extra }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The deck at LANES real lanes (bench/real-lanes.ts: worktrees on disk, a tenth with a live harness, LIVE of them
 * started by the kernel with a shell harness): the data it draws from (the whole tree, one run, the first tree of a
 * kernel that has just started and of one restarted); its first render in Chromium (navigation to the first frame
 * after the runs are drawn); the update after a report a lane files from its own shell (the report stored to the
 * first frame with its row showing it); the kernel's CPU while idle with the deck open. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('deck')
  const browser = await chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    args: CHROMIUM_ARGS,
  })
  let stopLanes = () => {}
  const started: string[] = []
  try {
    const t0 = Date.now()
    const lanes = await writeRealLanes(h, LANES - LIVE)
    stopLanes = lanes.stop
    console.log(`  (${LANES - LIVE} worktrees and lanes written in ${((Date.now() - t0) / 1000).toFixed(1)} s)`)

    let k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const base = () => `http://127.0.0.1:${k.port}`
    const get = async (path: string) => {
      const t = performance.now()
      const res = await fetch(base() + path, { headers: { authorization: `Bearer ${k.token}` } })
      const body = await res.text()
      if (!res.ok) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`)
      return { ms: performance.now() - t, body }
    }
    // A kernel's first start reads every worktree: its first answer waits for the worktrees it shows.
    const firstStart = (await get('/api/tree')).ms
    const times = async (path: string) => {
      const xs: number[] = []
      for (let i = 0; i < TIMES; i++) {
        // Past the life of a cached answer (500 ms): each is computed anew, as after a change.
        await sleep(600)
        xs.push((await get(path)).ms)
      }
      return xs
    }
    const tree = await times('/api/tree')
    const oneRun = await times('/api/tree?run=r3')
    const lanesOfRun = await times('/api/lanes?run=r3')

    // The lanes that report: real launches with a shell harness; each pushes its branch, then waits on its pipe.
    const live = await startLiveLanes(h, lanes.project, started)

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    await page.addInitScript(PAINT_PROBE)
    await page.goto(JSON.parse(run(process.execPath, [SVC, 'deck', '--json', '--no-open'], { env: h.env })).url)
    await page.locator('[data-run="live"]').waitFor({ timeout: 60_000 })
    const firsts: number[] = []
    const drawn: number[] = []
    const fetched: number[] = []
    for (let i = 0; i < LOADS + 1; i++) {
      await page.goto(`${base()}/`)
      await page.waitForFunction(() => (window as unknown as Probe).__painted !== undefined, undefined, {
        timeout: 60_000,
      })
      const t = await page.evaluate(() => ({
        painted: (window as unknown as Probe).__painted!,
        drawn: performance.getEntriesByName('svc:drawn')[0].startTime,
        fetched: performance.getEntriesByName('svc:fetched')[0].startTime,
      }))
      // The first load warms the kernel's caches and the browser's.
      if (i > 0) {
        firsts.push(t.painted)
        drawn.push(t.drawn)
        fetched.push(t.fetched)
      }
    }
    const rows = await page.locator('#runs li[data-id]').count()
    if (rows !== LANES) throw new Error(`the deck drew ${rows} rows, not ${LANES}`)

    // Each live lane files its report when its pipe is written; the page shows it by itself.
    await sleep(1500)
    const updates: number[] = []
    for (const lane of live) {
      await watchRow(page, lane.id)
      await exec('sh', ['-c', `echo go > '${lane.pipe}'`], { timeout: 30_000 })
      await page
        .waitForFunction(() => (window as unknown as Probe).__seen !== undefined, undefined, { timeout: 30_000 })
        .catch(async (e: Error) => {
          const row = await page.evaluate((id) => document.querySelector(`li[data-id="${id}"]`)?.outerHTML, lane.id)
          const view = (await get(`/api/lanes/${lane.name}`)).body
          throw new Error(`${lane.name}: ${e.message}\nits row: ${row?.slice(0, 2000)}\nits view: ${view}`)
        })
      const seen = await page.evaluate(() => performance.timeOrigin + (window as unknown as Probe).__seen!)
      const view = JSON.parse((await get(`/api/lanes/${lane.name}`)).body) as LaneView
      if (!view.report) throw new Error(`${lane.name} shows no report`)
      updates.push(seen - view.report.at)
      // The page draws the whole tree again a second after a change it patched in place (live.ts SETTLE_MS): the
      // next report is filed once that is done, so each update is measured alone.
      await sleep(2500)
    }

    // Idle with the deck open (its event stream and heartbeats): the kernel's CPU over 5 s, once the reports settled.
    await sleep(3000)
    const cpu = () => {
      const f = readFileSync(`/proc/${k.pid}/stat`, 'utf8').split(') ')[1].split(' ')
      return Number(f[11]) + Number(f[12])
    }
    const c0 = cpu()
    await sleep(5000)
    const idlePct = (cpu() - c0) / 5 // clock ticks of 10 ms over 5 s, as a percentage of one core
    await page.close()

    // A restart: the next kernel shows the git facts the last one saved, and reads every worktree again behind.
    run(process.execPath, [SVC, 'kernel', 'stop'], { env: h.env })
    for (let i = 0; i < 200 && alive(k.pid); i++) await sleep(50)
    k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const restarted = (await get('/api/tree')).ms

    return [
      fig(
        `${LANES} real lanes: GET /api/tree (the deck's first render draws from it)`,
        tree,
        500,
        `; the first of a kernel's first start, every worktree read: ${firstStart.toFixed(0)} ms`,
      ),
      {
        what: `${LANES} real lanes: the first GET /api/tree of a restarted kernel`,
        value: restarted,
        unit: 'ms',
        target: '≤ 500 ms',
        ok: restarted <= 500,
        note: 'from the git facts the last kernel saved (16.8 s when every worktree was read first)',
      },
      fig(`${LANES} real lanes: GET /api/tree?run= of one run of ${PER_RUN}`, oneRun, 50),
      fig(`${LANES} real lanes: GET /api/lanes?run= of one run of ${PER_RUN}`, lanesOfRun, 50),
      fig(
        `Command Deck, ${LANES} real lanes, Chromium: first render (navigation to the first frame with the runs drawn)`,
        firsts,
        500,
        `; the tree fetched and parsed at ${median(fetched).toFixed(0)} ms, the rows built at ` +
          `${median(drawn).toFixed(0)} ms`,
      ),
      fig(
        `Command Deck, ${LANES} real lanes, Chromium: a lane's report (filed from its shell) stored to its row drawn`,
        updates,
        100,
      ),
      {
        what: `${LANES} real lanes: kernel CPU while idle with the Command Deck open`,
        value: idlePct,
        unit: '% of a core',
        target: '≤ 2 %',
        ok: idlePct <= 2,
      },
    ]
  } finally {
    await browser.close()
    stopLanes()
    // A live lane that never filed its report (a failed run of the bench) is stopped with its runner.
    for (const name of started)
      try {
        run(process.execPath, [SVC, 'lane', 'stop', name], { env: { ...h.env, SERVICE_CONVERSATION: '1' } })
      } catch {}
    h.cleanup()
  }
}

interface Probe {
  __painted?: number
  __seen?: number
}

/** In the page, before its own code: when the deck marks its rows drawn (`svc:drawn`), the time of the first frame
 * after (a task queued from the frame's animation callback runs once that frame is painted). */
const PAINT_PROBE = `
  new PerformanceObserver((list) => {
    if (window.__painted !== undefined) return
    if (!list.getEntries().some((e) => e.name === 'svc:drawn')) return
    requestAnimationFrame(() => {
      const c = new MessageChannel()
      c.port1.onmessage = () => { if (window.__painted === undefined) window.__painted = performance.now() }
      c.port2.postMessage(0)
    })
  }).observe({ type: 'mark', buffered: true })
`

/** Note the first frame in which the lane's row shows a done report. */
async function watchRow(page: Page, id: string) {
  await page.evaluate((id) => {
    const w = window as unknown as Probe
    w.__seen = undefined
    const seen = () => document.querySelector(`li[data-id="${id}"] > .row [data-report="done"]`)
    new MutationObserver((_, o) => {
      if (!seen()) return
      o.disconnect()
      requestAnimationFrame(() => {
        const c = new MessageChannel()
        c.port1.onmessage = () => (w.__seen = performance.now())
        c.port2.postMessage(0)
      })
    }).observe(document.body, { childList: true, subtree: true, attributes: true })
  }, id)
}

/** LIVE lanes of run `live`, started through `svc lane start` by the root conversation with a shell harness: each
 * pushes its branch, waits until its pipe is written, then files a done report with `svc lane report`, as a lane
 * does. Returns once every branch is on origin (each lane is waiting). */
async function startLiveLanes(h: ReturnType<typeof benchHome>, project: string, started: string[]) {
  const env = { ...h.env, SERVICE_CONVERSATION: '1' }
  const out: { id: string; name: string; pipe: string }[] = []
  for (let i = 0; i < LIVE; i++) {
    const pipe = join(h.home, `go-${i}`)
    execFileSync('mkfifo', [pipe])
    const script = [
      'git push -q -u origin HEAD',
      `read go < '${pipe}'`,
      `printf 'built %s\\n' ${i} | svc lane report --stdin`,
    ].join('\n')
    const args = [
      'lane',
      'start',
      '--run',
      'live',
      '--key',
      `u${i}`,
      '--role',
      'builder',
      '--harness',
      'shell',
      '--model',
      'none',
    ]
    const lane = JSON.parse(
      run(process.execPath, [SVC, ...args, '--project', project, '--prompt', script, '--no-wait', '--json'], {
        env,
        cwd: h.home,
      }),
    ) as { lane: { id: string; name: string } }
    out.push({ id: lane.lane.id, name: lane.lane.name, pipe })
    started.push(lane.lane.name)
  }
  const origin = join(h.home, 'origin.git')
  for (let tries = 0; ; tries++) {
    const refs = run('git', ['--git-dir', origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/live/'])
    if (refs.trim().split('\n').filter(Boolean).length === LIVE) break
    if (tries > 600) throw new Error(`the live lanes did not push their branches: ${refs}`)
    await sleep(100)
  }
  return out
}

function alive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
