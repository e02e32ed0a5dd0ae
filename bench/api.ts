import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureKernel } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { writeStore } from './gen.js'
import { benchHome, median, run, type Figure } from './lib.js'

/** GET /api/lanes with 1000 lanes, load from a second process on the loopback. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('api')
  try {
    writeStore(h.service, { n: 1001, lanes: 1000, reportsPer: 2, lanesRoot: join(h.home, 'lanes') })
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const client = fileURLToPath(new URL('./load-client.js', import.meta.url))
    run(process.execPath, [client, String(k.port), k.token, '/api/lanes', '2', '4']) // warm-up
    // Three runs of 3 s; each figure is the median of the three.
    const runs = Array.from(
      { length: 3 },
      () =>
        JSON.parse(run(process.execPath, [client, String(k.port), k.token, '/api/lanes', '3', '8'])) as {
          requests: number
          errors: number
          rps: number
          p99: number
        },
    )
    const rps = median(runs.map((r) => r.rps))
    const p99 = median(runs.map((r) => r.p99))
    const errors = runs.reduce((n, r) => n + r.errors, 0)
    const note =
      `median of 3 runs, ${runs.reduce((n, r) => n + r.requests, 0)} requests, ${errors} errors, 8 ` + `connections`
    return [
      {
        what: 'GET /api/lanes, 1000 lanes, second process: throughput',
        value: rps,
        unit: 'req/s',
        target: '≥ 1000 req/s',
        ok: rps >= 1000 && errors === 0,
        note,
      },
      {
        what: 'GET /api/lanes, 1000 lanes, second process: p99 latency',
        value: p99,
        unit: 'ms',
        target: '≤ 50 ms',
        ok: p99 <= 50,
      },
    ]
  } finally {
    h.cleanup()
  }
}
