import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { gitIn, writeProjectsYaml } from '../cli/demo/sample-project.js'
import { remotePort } from '../kernel/port/client.js'
import { bigProject } from './big-repo.js'
import {
  benchHome,
  flushWrites,
  median,
  SVC,
  timeCommand,
  timeFlushed,
  versus,
  wallTimeOfAll,
  type Figure,
} from './lib.js'

const RUNS = 3
/** Runs of the full start and its floor: an even number, so that each goes first as often as the other. */
const FULL_RUNS = 4
/** Rounds of the concurrency figure: each measures both sides, in alternating order. */
const ROUNDS = 3

/** The CLI's arguments for `svc lane start --no-wait` of builder `k<i>` in run `run`. */
const startArgs = (run: string, i: number) => [
  SVC,
  'lane',
  'start',
  '--run',
  run,
  '--key',
  `k${i}`,
  '--role',
  'builder',
  '--prompt',
  'x',
  '--no-wait',
]

/** `svc lane start --no-wait` of a builder in a repository of 20 000 files against `git worktree add` of the same;
 * the same with sparse_checkout selecting 5%; 50 concurrent starts against 50 serial worktree adds. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('start')
  try {
    writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n')
    const p = bigProject(join(h.home, 'src'), 20_000)
    const lanes = `${p.checkout}-lanes`
    const roles = { builder: { model: 'm', harness: 'none' as const } }
    writeProjectsYaml(h.service, { ...p }, { gauntlet: { roles } })
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const port = remotePort(httpTransport(k))
    const root = (await port.convNew({ harness: 'none', project: p.key })).id
    const env = { ...h.env, SERVICE_CONVERSATION: root }

    // Each timed run of a large tree begins with nothing left to write (timeFlushed).
    const addFloor = (n: number) =>
      timeFlushed('git', ['worktree', 'add', '--quiet', '-b', `floor/${n}`, join(lanes, `floor-${n}`), 'origin/main'], {
        cwd: p.checkout,
      })
    const fullStart = (i: number) => timeFlushed(process.execPath, startArgs('b', i), { env })
    const full = await versus(FULL_RUNS, fullStart, addFloor)
    writeProjectsYaml(h.service, { ...p }, { gauntlet: { roles, sparse_checkout: ['/d00/'] } })
    const sparse: number[] = []
    for (let i = 0; i < RUNS; i++) sparse.push(await timeFlushed(process.execPath, startArgs('s', i), { env }))
    writeProjectsYaml(h.service, { ...p }, { gauntlet: { roles } })
    // The floor of a sparse start, measured here: a Node process (the CLI), the fetch SPEC.md requires before
    // every git-backed launch, and git's own steps for a sparse worktree (the three the kernel runs to write it).
    const nodes: number[] = []
    const fetchesT: number[] = []
    const gitSparse: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const dir = join(lanes, `gs-${i}`)
      nodes.push(await timeCommand(process.execPath, ['-e', '0']))
      fetchesT.push(await timeCommand('git', ['fetch', '--quiet', '--prune', 'origin'], { cwd: p.checkout }))
      flushWrites()
      const t0 = process.hrtime.bigint()
      await timeCommand('git', ['worktree', 'add', '--quiet', '--no-checkout', '-b', `gs/${i}`, dir, 'origin/main'], {
        cwd: p.checkout,
      })
      await timeCommand('git', ['sparse-checkout', 'set', '--no-cone', '/d00/'], { cwd: dir })
      await timeCommand('git', ['reset', '--hard', '--quiet'], { cwd: dir })
      gitSparse.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
    const sparseFloor = median(nodes) + median(fetchesT) + median(gitSparse)
    const floorNote =
      `node -e 0 ${median(nodes).toFixed(0)} ms + git fetch ${median(fetchesT).toFixed(0)} ms + ` +
      `git's sparse steps ${median(gitSparse).toFixed(0)} ms`

    // 50 concurrent starts of different keys, against 50 serial worktree adds of the same tree, in ROUNDS rounds.
    // A project of 1 000 files keeps this within the bench's time: every round writes 100 trees, all removed at the
    // end on a disk mounted with discard (300 000 files here). A smaller tree weighs the kernel's own cost of a start
    // more, not less.
    const small = bigProject(join(h.home, 'src-small'), 1_000)
    writeProjectsYaml(h.service, { ...small, key: 'small' }, { gauntlet: { roles } })
    const smallRoot = (await port.convNew({ harness: 'none', project: 'small' })).id
    const serialAdds = async (r: number) => {
      const t0 = Date.now()
      for (let i = 0; i < 50; i++)
        await timeCommand(
          'git',
          [
            'worktree',
            'add',
            '--quiet',
            '-b',
            `floor/${r}-${i}`,
            join(`${small.checkout}-lanes`, `floor-${r}-${i}`),
            'origin/main',
          ],
          { cwd: small.checkout },
        )
      return Date.now() - t0
    }
    const concurrentStarts = (r: number) =>
      wallTimeOfAll(50, (i) =>
        timeCommand(process.execPath, [...startArgs(`c${r}`, i), '--project', 'small'], {
          env: { ...env, SERVICE_CONVERSATION: smallRoot },
        }),
      )
    // What fifty starts must pay beside their adds, whatever the kernel does: fifty Node processes (the CLIs) at once.
    const fiftyNodes = () => wallTimeOfAll(50, () => timeCommand(process.execPath, ['-e', '0']))
    const nodes50: number[] = []
    const serials: number[] = []
    const concurrents: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which side goes first, so neither always meets the disk the other has just filled.
      if (r % 2) concurrents.push(await concurrentStarts(r))
      serials.push(await serialAdds(r))
      nodes50.push(await fiftyNodes())
      if (r % 2 === 0) concurrents.push(await concurrentStarts(r))
    }
    const serial = median(serials)
    const f = full.b
    const concurrent = median(concurrents)
    const concurrentFloor = serial + median(nodes50)
    const fullFloor = f + median(nodes) + median(fetchesT)
    gitIn(p.checkout, 'worktree', 'prune')
    // Each start is judged against its measured floor: what every start pays whatever the kernel does (a Node
    // process for the CLI, the fetch SPEC.md requires, and git's own steps). The first ratios, against git
    // alone, are printed beside them for information (README, Benchmarks: on this machine the sparse one lies below
    // its floor, and the other two leave the kernel nothing once Node and the fetch are paid).
    return [
      {
        what: 'svc lane start --no-wait, builder, 20 000 files',
        value: full.a,
        unit: 'ms',
        target: '≤ 1.3× git worktree add + node -e 0 + git fetch',
        ok: full.a <= 1.3 * fullFloor,
        floor: { what: 'that floor', value: fullFloor },
        note:
          `add ${f.toFixed(0)} + node -e 0 ${median(nodes).toFixed(0)} + git fetch ` +
          `${median(fetchesT).toFixed(0)} ms; ${FULL_RUNS} runs each: start ` +
          `${full.as.map((x) => x.toFixed(0)).join(', ')} ms; add ${full.bs.map((x) => x.toFixed(0)).join(', ')} ms`,
      },
      {
        what: 'the same, against git worktree add alone',
        value: full.a,
        unit: 'ms',
        target: '≤ 1.3× git worktree add',
        ok: full.a <= 1.3 * f,
        informational: true,
        floor: { what: 'git worktree add', value: f },
      },
      {
        what: 'the same with sparse_checkout selecting 5%',
        value: median(sparse),
        unit: 'ms',
        target: '≤ 1.5× node + fetch + git sparse steps',
        ok: median(sparse) <= 1.5 * sparseFloor,
        floor: { what: 'that floor', value: sparseFloor },
        note: floorNote,
      },
      {
        what: 'the same, against the full git worktree add',
        value: median(sparse),
        unit: 'ms',
        target: '≥ 5× faster than git worktree add of the full tree',
        ok: median(sparse) * 5 <= f,
        informational: true,
        floor: { what: 'full git worktree add', value: f },
      },
      {
        what: '50 lanes started concurrently (different keys, 1 000 files)',
        value: concurrent,
        unit: 'ms',
        target: '≤ 1.2× 50 serial adds + 50 concurrent node -e 0',
        ok: concurrent <= 1.2 * concurrentFloor,
        floor: { what: 'that floor', value: concurrentFloor },
        note:
          `medians of ${ROUNDS} rounds: concurrent ${concurrents.join(', ')} ms; serial adds ` +
          `${serials.join(', ')} ms; 50 node -e 0 at once ${nodes50.join(', ')} ms`,
      },
      {
        what: 'the same, against the 50 serial adds alone',
        value: concurrent,
        unit: 'ms',
        target: '≤ 1.2× 50 serial git worktree add',
        ok: concurrent <= 1.2 * serial,
        informational: true,
        floor: { what: '50 × git worktree add, serial', value: serial },
      },
    ]
  } finally {
    h.cleanup()
  }
}
