import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { remotePort } from '../kernel/port/client.js'
import { writeStore } from './gen.js'
import { benchHome, median, SVC, timeCommand, type Figure } from './lib.js'

/** The store at 10 000 conversations and 50 000 reports: kernel start, its memory, and one report write. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('store')
  try {
    writeStore(h.service, { n: 10_000, lanes: 10_000 - 1, reportsPer: 5, lanesRoot: join(h.home, 'lanes') })
    const io = { ...processIo(), env: h.env }
    const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024
    // Five starts, each timed; after each, the kernel's memory once it has answered a list of its lanes.
    const starts: number[] = []
    const rss: number[] = []
    for (let i = 0; i < 5; i++) {
      starts.push(await timeCommand(process.execPath, [SVC, 'kernel', 'start'], { env: h.env }))
      const k = (await ensureKernel(io))!
      await remotePort(httpTransport(k)).laneList({ run: 'bench', key: 'k2' })
      rss.push(rssOf(k.pid))
      if (i < 4) await timeCommand(process.execPath, [SVC, 'kernel', 'stop'], { env: h.env })
    }
    const k = (await ensureKernel(io))!
    const port = remotePort(httpTransport(k))
    const writes: number[] = []
    for (let i = 0; i < 100; i++) {
      const t0 = process.hrtime.bigint()
      await port.laneReport({ conversation: String(2 + i), body: `BLOCKED bench report ${i}`, status: 'blocked' })
      writes.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
    const rssAfter = rssOf(k.pid)
    return [
      {
        what: 'kernel start at 10 000 conversations, 50 000 reports (svc kernel start, wall)',
        value: median(starts),
        unit: 'ms',
        target: '≤ 1000 ms',
        ok: median(starts) <= 1000,
      },
      {
        what: 'kernel RSS at that size (median of 5 kernels)',
        value: median(rss),
        unit: 'MB',
        target: '≤ 200 MB',
        ok: median(rss) <= 200 && rssAfter <= 200,
        note: `after 100 report writes: ${rssAfter.toFixed(1)} MB`,
      },
      {
        what: 'one report write at that size (p50, HTTP round trip)',
        value: median(writes),
        unit: 'ms',
        target: '≤ 5 ms',
        ok: median(writes) <= 5,
      },
    ]
  } finally {
    h.cleanup()
  }
}
