import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { remotePort } from '../kernel/port-client.js'
import { writeStore } from './gen.js'
import { benchHome, median, SVC, timeCommand, type Figure } from './lib.js'

/** The store at 10 000 conversations and 50 000 reports: kernel start, its memory, and one report write. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('store')
  try {
    writeStore(h.service, { n: 10_000, lanes: 10_000 - 1, reportsPer: 5, lanesRoot: join(h.home, 'lanes') })
    const starts: number[] = []
    for (let i = 0; i < 5; i++) {
      starts.push(await timeCommand(process.execPath, [SVC, 'kernel', 'start'], { env: h.env }))
      await timeCommand(process.execPath, [SVC, 'kernel', 'stop'], { env: h.env })
    }
    const io = { ...processIo(), env: h.env }
    const k = (await ensureKernel(io))!
    const port = remotePort(httpTransport(k))
    await port.laneList({ run: 'bench', key: 'k2' })
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${k.pid}/status`, 'utf8'))![1]) / 1024
    const writes: number[] = []
    for (let i = 0; i < 100; i++) {
      const t0 = process.hrtime.bigint()
      await port.laneReport({ conversation: String(2 + i), body: `BLOCKED bench report ${i}`, status: 'blocked' })
      writes.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
    const rssAfter = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${k.pid}/status`, 'utf8'))![1]) / 1024
    return [
      { what: 'kernel start at 10 000 conversations, 50 000 reports (svc kernel start, wall)', value: median(starts), unit: 'ms', target: '≤ 1000 ms', ok: median(starts) <= 1000 },
      { what: 'kernel RSS at that size', value: Math.max(rss, rssAfter), unit: 'MB', target: '≤ 200 MB', ok: Math.max(rss, rssAfter) <= 200 },
      { what: 'one report write at that size (p50, HTTP round trip)', value: median(writes), unit: 'ms', target: '≤ 5 ms', ok: median(writes) <= 5 },
    ]
  } finally {
    h.cleanup()
  }
}
