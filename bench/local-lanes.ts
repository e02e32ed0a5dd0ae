import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { createSampleProject, writeProjectsYaml } from '../cli/demo/sample-project.js'
import { remotePort } from '../kernel/port/client.js'
import { convFiles } from '../kernel/io/home.js'
import { procStat } from '../kernel/io/procs.js'
import { liveDescendants } from '../kernel/io/subreaper.js'
import { startModelApi } from '../fixtures/model-api.js'
import { processesOfHome } from '../test/helpers/home.js'
import { realClaudePath } from '../test/helpers/real-harness.js'
import { benchHome, type Figure } from './lib.js'

/** Issue 27: the memory a local lane costs. N shell lanes started through the kernel, each waiting, then one real
 * claude lane against the stand-in model API, idle after its first turn. What a lane costs is what serves it: every
 * process of the home (runners, their wrappers) but the kernel (and its short-lived git children) and the harness
 * with what it started. Summed proportional set size (PSS: a page shared by k processes counts 1/k in each) over
 * those processes, divided by N; also the resident and the private figures beside it. `SERVICE_BENCH_LANES` sets N. */
const LANES = Number(process.env.SERVICE_BENCH_LANES ?? 20)
const TARGET_MB = 8
const MODEL = 'claude-sonnet-4-5'

interface Memory {
  pss: number
  rss: number
  /** Pages of this process alone (Private_Clean + Private_Dirty). */
  uss: number
}

/** A process's memory in kB, from /proc/<pid>/smaps_rollup; zero for one that has ended. */
function memoryOf(pid: number): Memory {
  let text = ''
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  } catch {}
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)
  return { pss: kb('Pss'), rss: kb('Rss'), uss: kb('Private_Clean') + kb('Private_Dirty') }
}

/** What a process is, for the breakdown: its program and script, and the verb of svc's main. */
function kindOf(pid: number): string {
  let argv: string[] = []
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {}
  const base = (path: string | undefined) => (path ?? '?').split('/').pop()!
  if (base(argv[0]) === 'perl') return 'perl (wrapper)'
  const at = argv.findIndex((a, i) => i > 0 && !a.startsWith('-'))
  if (at < 0) return base(argv[0])
  const verb = base(argv[at]) === 'main.js' && argv[at + 1] ? ` ${argv[at + 1]}` : ''
  return `${base(argv[0])} ${base(argv[at])}${verb}`
}

/** The processes that serve the home's lanes now: the home's processes but the kernel's group, this process's group
 * and every harness with what it started. */
function servingProcesses(service: string, kernelPid: number, harnessPids: number[]): number[] {
  const others = new Set([procStat(process.pid)?.pgid, procStat(kernelPid)?.pgid])
  const harnesses = new Set(harnessPids.flatMap((p) => [p, ...liveDescendants(p)]))
  return processesOfHome(service).filter((p) => !harnesses.has(p) && !others.has(procStat(p)?.pgid))
}

function measure(pids: number[]) {
  const total: Memory = { pss: 0, rss: 0, uss: 0 }
  const kinds = new Map<string, { n: number; pss: number }>()
  const each = new Map<number, Memory>()
  for (const pid of pids) {
    const m = memoryOf(pid)
    each.set(pid, m)
    total.pss += m.pss
    total.rss += m.rss
    total.uss += m.uss
    const k = kindOf(pid)
    const got = kinds.get(k) ?? { n: 0, pss: 0 }
    kinds.set(k, { n: got.n + 1, pss: got.pss + m.pss })
  }
  const breakdown = [...kinds]
    .map(([k, v]) => `${v.n}× ${k} ${(v.pss / v.n / 1024).toFixed(1)} MB`)
    .sort()
    .join(', ')
  return { total, breakdown, count: pids.length, each }
}

const MB = (kb: number) => kb / 1024

async function until<T>(fn: () => T | undefined, what: string, ms = 120_000): Promise<T> {
  const t0 = Date.now()
  for (;;) {
    const got = fn()
    if (got !== undefined) return got
    if (Date.now() - t0 > ms) throw new Error(`local-lanes bench: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The memory of what serves the lanes once it has settled: a Node process gives back what its start took only when
 * V8's memory reducer runs, some seconds after it goes idle. Sampled each second until the total has moved by under
 * 1% over the last four samples, at least `settleMs` after the last start. */
async function settled(pids: () => number[], settleMs = 12_000, limitMs = 60_000) {
  const t0 = Date.now()
  const totals: number[] = []
  for (;;) {
    const m = measure(pids())
    totals.push(m.total.pss)
    const last = totals.slice(-4)
    const still = last.length === 4 && Math.max(...last) - Math.min(...last) <= 0.01 * Math.max(...last)
    if ((still && Date.now() - t0 >= settleMs) || Date.now() - t0 >= limitMs) return m
    await new Promise((r) => setTimeout(r, 1000))
  }
}

/** An idle Node process with nothing loaded, in the environment runners get: the least a lane served by a Node
 * process of its own can cost. */
async function bareNode(env: NodeJS.ProcessEnv): Promise<Memory> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600_000)'], { stdio: 'ignore', env })
  try {
    await new Promise((r) => child.once('spawn', r))
    const m = await settled(() => [child.pid!], 12_000, 30_000)
    return m.total
  } finally {
    child.kill('SIGKILL')
  }
}

function stateOf(service: string, name: string): any {
  const path = convFiles(service, name).state
  try {
    return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined
  } catch {
    return undefined // being replaced
  }
}

export async function bench(): Promise<Figure[]> {
  const h = benchHome('local-lanes')
  const api = await startModelApi()
  let port: ReturnType<typeof remotePort> | undefined
  const started: string[] = []
  try {
    writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n')
    const project = createSampleProject(join(h.home, 'src'), 'mem')
    writeProjectsYaml(h.service, project, { gauntlet: { roles: { builder: { model: 'm', harness: 'shell' } } } })
    // The real claude first on PATH, the stand-in its only model service (as the real-harness tests set it).
    const bin = join(h.dir, 'bin')
    mkdirSync(bin, { recursive: true })
    symlinkSync(realClaudePath(), join(bin, 'claude'))
    const inherited = Object.keys(process.env).filter((k) => /^(ANTHROPIC|CLAUDE|OPENAI|CODEX)_/.test(k))
    const env: NodeJS.ProcessEnv = {
      ...h.env,
      ...Object.fromEntries(inherited.map((k) => [k, ''])),
      PATH: `${bin}:${process.env.PATH}`,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-standin',
      CLAUDE_CONFIG_DIR: join(h.home, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      // The kernel a person starts has their extra certificates, if any (a test home goes without).
      ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
    }
    const k = (await ensureKernel({ ...processIo(), env }))!
    port = remotePort(httpTransport(k))
    const root = (await port.convNew({ harness: 'none', project: project.key })).id
    const names: string[] = []
    for (let i = 0; i < LANES; i++) {
      const { lane } = await port.laneStart({
        role: 'builder',
        run: 'mem',
        key: `k${i}`,
        prompt: 'exec sleep 600',
        noWait: true,
        conversation: root,
      })
      names.push(lane.name)
      started.push(lane.id)
    }
    const harnessPid = (name: string, ready: (s: any) => boolean) =>
      until(() => {
        const s = stateOf(h.service, name)
        if (s?.ended) throw new Error(`local-lanes bench: lane ${name} ended: ${JSON.stringify(s.ended)}`)
        return s?.harness?.pid && ready(s) ? (s.harness.pid as number) : undefined
      }, `lane ${name} to run`)
    const shells = await Promise.all(names.map((n) => harnessPid(n, () => true)))
    const shellOnly = await settled(() => servingProcesses(h.service, k.pid, shells))

    // One claude lane, idle after its first turn: the runner of a harness that streams JSON.
    const { lane } = await port.laneStart({
      role: 'builder',
      run: 'mem',
      key: 'claude',
      harness: 'claude',
      model: MODEL,
      prompt: 'say hello',
      noWait: true,
      conversation: root,
    })
    started.push(lane.id)
    const claude = await harnessPid(lane.name, (s) => s.phase?.value === 'idle')
    const withClaude = await settled(() => servingProcesses(h.service, k.pid, [...shells, claude]))
    const bare = await bareNode(h.env)

    const perLane = MB(shellOnly.total.pss) / LANES
    // What the claude lane added: the processes that serve it alone, and what those serving others too grew by
    // (the others' shrinking as they settle further is not counted against it).
    const added: Memory = { pss: 0, rss: 0, uss: 0 }
    for (const [pid, m] of withClaude.each) {
      const before = shellOnly.each.get(pid) ?? { pss: 0, rss: 0, uss: 0 }
      for (const f of ['pss', 'rss', 'uss'] as const) added[f] += Math.max(0, m[f] - before[f])
    }
    const claudeMarginal = MB(added.pss)
    return [
      {
        what: `memory per local lane, ${LANES} shell lanes (PSS of what serves them, per lane)`,
        value: perLane,
        unit: 'MB',
        target: `<= ${TARGET_MB} MB`,
        ok: perLane <= TARGET_MB,
        note: `${shellOnly.count} processes: ${shellOnly.breakdown}`,
      },
      {
        what: 'memory per local lane: RSS, and private (USS)',
        value: MB(shellOnly.total.rss) / LANES,
        unit: 'MB',
        target: `<= ${TARGET_MB} MB`,
        ok: MB(shellOnly.total.rss) / LANES <= TARGET_MB,
        informational: true,
        note: `private ${(MB(shellOnly.total.uss) / LANES).toFixed(1)} MB a lane`,
      },
      {
        what: 'an idle Node process with nothing loaded (the floor of a Node process per lane): PSS',
        value: MB(bare.pss),
        unit: 'MB',
        target: `<= ${TARGET_MB} MB`,
        ok: MB(bare.pss) <= TARGET_MB,
        informational: true,
        note: `RSS ${MB(bare.rss).toFixed(1)} MB, private ${MB(bare.uss).toFixed(1)} MB`,
      },
      {
        what: 'memory of one more lane, a real claude lane idle (PSS added to what serves the lanes)',
        value: claudeMarginal,
        unit: 'MB',
        target: `<= ${TARGET_MB} MB`,
        ok: claudeMarginal <= TARGET_MB,
        note: `RSS added ${MB(added.rss).toFixed(1)} MB, private ${MB(added.uss).toFixed(1)} MB`,
      },
    ]
  } finally {
    // Stop every lane's runner before the kernel goes: the home is removed at the end of the run.
    await Promise.all(started.map((id) => port?.laneStop({ lane: id }).catch(() => {})))
    h.cleanup()
    await api.close()
  }
}
