import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { writeProjectsYaml, createSampleProject } from '../../cli/demo/sample-project.js'
import { remotePort } from '../../kernel/port/client.js'
import type { KernelPort } from '../../kernel/port/port.js'
import { TestHome, alive } from '../helpers/home.js'
import { recordFigure } from './figures.js'
import { prng } from '../e2e/dirty-kit.js'
import { caseCount } from '../helpers/cases.js'

// Each kill is a fresh draw of the same random moment under the same load; 100 of them cut about 300 calls (launches
// and reports in flight on three clients). Each kill waits (up to 5 s) for three acknowledged writes, so that 100 kills
// check about as many writes as 200 did before; the figure records how many there were. Each fault point of those
// calls is killed one by one in the crash suites (crash.test.ts and the files beside it).
// Every run kills 20 times, the nightly run (SERVICE_TEST_FULL=1) 100 times: the moments are drawn from the same
// seed, so a run's kills are the first of the nightly run's, and more of them repeat the same calls cut at other
// points. SERVICE_SOAK_KILLS=<n> runs a soak of n kills. The moments are drawn from a seeded generator, the seed in the
// test's name: SERVICE_SOAK_SEED=<n> draws the same moments again.
const KILLS = caseCount('SERVICE_SOAK_KILLS', { quick: 20, full: 100 })
const SEED = Number(process.env.SERVICE_SOAK_SEED ?? 20261126)
const rng = prng(SEED)

test(`random-kill soak: ${KILLS} SIGKILLs of the kernel at moments drawn with seed ${SEED} under load; every acknowledged write survives`, async () => {
  const h = new TestHome('soak')
  try {
    const project = createSampleProject(join(h.home, 'src'))
    writeProjectsYaml(h.service, project, { gauntlet: { roles: { play: { model: 'm', harness: 'none' } } } })
    const io = { ...processIo(), env: h.env() }
    const port = async (): Promise<KernelPort> => remotePort(httpTransport((await ensureKernel(io))!))
    // The killer starts the next kernel; a client waits for it (clients racing to start one is proven in
    // test/e2e/kernel.test.ts, and each loser of the race cost a node start per kill). The kernel it finds may be
    // killed under its status check (the connection reset, or refused past the check's own retries on a slow
    // machine): that is the soak's load, not a failure, and the client looks again.
    const started = async (): Promise<KernelPort> => {
      for (;;) {
        const k = await ensureKernel(io, false).catch((e) => {
          if (process.env.SOAK_DEBUG) console.error(String(e))
          return undefined
        })
        if (k) return remotePort(httpTransport(k))
        await new Promise((r) => setTimeout(r, 20))
      }
    }
    const root = (await (await port()).convNew({ harness: 'none', project: project.key })).id
    const acks: { conv: string; reports: number[] }[] = []
    let stop = false
    let failures = 0
    /** Acknowledged writes so far: lanes and reports. */
    let written = 0
    // Clients: each creates a play lane, then files reports on it; a failed call is retried on a fresh kernel.
    const client = async (n: number) => {
      let p = await started()
      let i = 0
      while (!stop) {
        try {
          const lane = await p.laneStart({
            conversation: root,
            run: 'soak',
            key: `c${n}-${i++}`,
            role: 'play',
            prompt: 'x',
            noWait: true,
          })
          const entry = { conv: lane.lane.id, reports: [] as number[] }
          acks.push(entry)
          written++
          for (let r = 0; r < 3 && !stop; r++) {
            const rep = await p.laneReport({ conversation: lane.lane.id, body: `BLOCKED ${r}`, status: 'blocked' })
            entry.reports.push(rep.report.seq)
            written++
          }
        } catch (e) {
          if (process.env.SOAK_DEBUG) console.error(String(e))
          failures++
          await new Promise((r) => setTimeout(r, 20))
          p = await started()
        }
      }
    }
    const clients = [client(1), client(2), client(3)]
    let kills = 0
    while (kills < KILLS) {
      // A kill at a random moment after the kernel answers again, while the clients' calls are in flight. Should the
      // lanes fall behind one per four kills, or the acknowledged writes three per kill (a slow moment of the machine
      // can cut off every call), the next kill waits for them (at most 5 s): what is checked at the end must not hang
      // on the machine's speed.
      await port().catch(() => undefined)
      const limit = Date.now() + 5000
      while ((acks.length < kills / 4 || written < 3 * kills) && Date.now() < limit)
        await new Promise((r) => setTimeout(r, 10))
      await new Promise((r) => setTimeout(r, 30 + rng.int(300)))
      const k = h.kernelFile()
      if (!k || !alive(k.pid)) continue
      try {
        process.kill(k.pid, 'SIGKILL')
        kills++
      } catch {}
    }
    stop = true
    const p = await port()
    await Promise.all(clients)
    let checked = 0
    for (const a of acks) {
      const v = await p.convShow({ conv: a.conv })
      assert.ok(v.lane, `acknowledged lane ${a.conv}`)
      for (const seq of a.reports) {
        const w = await p.laneWait({ lane: a.conv, after: String(seq - 1), timeoutMs: 0 })
        assert.ok(w.kind === 'report' && w.report.seq === seq, `acknowledged report ${seq} of ${a.conv}`)
        checked++
      }
      checked++
    }
    // That there was load to check: at least one lane in four kills.
    assert.ok(acks.length >= KILLS / 4, `the load made progress (${acks.length} lanes)`)
    // Reports too, not lanes alone: a report call failing every time would otherwise leave nothing to check.
    const reports = acks.reduce((sum, a) => sum + a.reports.length, 0)
    assert.ok(reports >= acks.length, `acknowledged reports to check (${reports} for ${acks.length} lanes)`)
    recordFigure(
      'random-kill soak under load (3 clients launching and reporting)',
      `${kills} SIGKILLs, ${failures} calls cut off and retried, ${checked} acknowledged writes checked, 0 lost`,
    )
  } finally {
    await h.stop()
  }
})

test.run()
