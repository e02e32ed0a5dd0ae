import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { remotePort } from '../kernel/port/client.js'
import { writeStore } from './gen.js'
import { benchHome, median, percentile, SVC, type Figure } from './lib.js'

const REPORTS = 200

/** From a report being stored (its time, set by the kernel) to a waiting `svc lane wait --run` printing it. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('wake')
  try {
    // Lanes created now, with no harness: they count as starting (live) for three minutes, longer than this runs.
    writeStore(h.service, { n: 21, lanes: 20, reportsPer: 0, lanesRoot: join(h.home, 'lanes'), createdAt: Date.now() })
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const port = remotePort(httpTransport(k))
    const latencies: number[] = []
    let cursor: string | undefined
    for (let i = 0; i < REPORTS; i++) {
      const child = spawn(
        process.execPath,
        [SVC, 'lane', 'wait', '--run', 'bench', ...(cursor ? ['--after', cursor] : []), '--timeout', '30'],
        { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let stderr = ''
      child.stderr.on('data', (d) => (stderr += d))
      const printed = new Promise<number>((resolve, reject) => {
        child.stdout.once('data', () => resolve(Date.now()))
        child.once('close', (code) => reject(new Error(`wait exited ${code} before printing: ${stderr}`)))
      })
      const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
      // Give the CLI time to start and block on the kernel, as a waiting orchestrator would be.
      await new Promise((r) => setTimeout(r, 180))
      const { report } = await port.laneReport({
        conversation: String(2 + (i % 20)),
        body: `BLOCKED report ${i}`,
        status: 'blocked',
      })
      latencies.push((await printed) - report.at)
      await closed
      cursor = /--after (\S+)\n$/.exec(stderr)?.[1]
      if (!cursor) throw new Error(`wait printed no cursor: ${stderr}`)
    }
    const p50 = median(latencies)
    const p99 = percentile(latencies, 99)
    return [
      {
        what: `report stored → waiting CLI prints it (p50 of ${REPORTS})`,
        value: p50,
        unit: 'ms',
        target: '≤ 20 ms',
        ok: p50 <= 20,
      },
      {
        what: `report stored → waiting CLI prints it (p99 of ${REPORTS})`,
        value: p99,
        unit: 'ms',
        target: '≤ 100 ms',
        ok: p99 <= 100,
      },
    ]
  } finally {
    h.cleanup()
  }
}
