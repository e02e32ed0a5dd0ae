import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { remotePort } from '../kernel/port/client.js'
import { benchHome, median, run, SVC, type Figure } from './lib.js'

const TRANSCRIPT_MB = 200

/** Write a transcript of about `mb` MB, in lines the runner would write, a few MB at a time. */
function writeTranscript(path: string, mb: number): number {
  const fd = openSync(path, 'w')
  let n = 0
  let size = 0
  try {
    while (size < mb * 1024 * 1024) {
      const lines: string[] = []
      for (let i = 0; i < 20_000; i++) {
        n++
        lines.push(
          JSON.stringify({
            n,
            at: 1_700_000_000_000 + n,
            kind: n % 3 ? 'assistant' : 'tool',
            text: `step ${n}: ${'lorem ipsum dolor sit amet '.repeat(4)}`,
          }),
        )
      }
      const chunk = lines.join('\n') + '\n'
      size += Buffer.byteLength(chunk)
      writeSync(fd, chunk)
    }
  } finally {
    closeSync(fd)
  }
  return n
}

/** A page of a 200 MB transcript through the kernel (the deck's first fetch, then its fetch of what is new), alone
 * and three readers at once (three deck tabs): time per page, and what the kernel's memory grew by. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('transcript')
  try {
    const id = run(process.execPath, [SVC, 'conv', 'new', '--harness', 'none', '--cwd', h.home], { env: h.env }).trim()
    const entries = writeTranscript(join(h.service, 'agents', `conv-c${id}`, 'transcript.jsonl'), TRANSCRIPT_MB)
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const port = remotePort(httpTransport(k))
    const rssOf = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${k.pid}/status`, 'utf8'))![1]) / 1024
    const rssBefore = rssOf()
    const timed = async (cursor?: number) => {
      const t0 = process.hrtime.bigint()
      const page = await port.convTranscript({ conv: id, cursor })
      return { ms: Number(process.hrtime.bigint() - t0) / 1e6, page }
    }
    const last: number[] = []
    const next: number[] = []
    let cursor = 0
    for (let i = 0; i < 20; i++) {
      const r = await timed()
      if (r.page.entries.at(-1)?.n !== entries)
        throw new Error(`the last page ends at entry ${r.page.entries.at(-1)?.n}, not ${entries}`)
      last.push(r.ms)
      cursor = r.page.cursor
      next.push((await timed(cursor)).ms)
    }
    const tabs: number[] = []
    for (let i = 0; i < 10; i++) {
      const t0 = process.hrtime.bigint()
      await Promise.all([timed(), timed(), timed()])
      tabs.push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
    const grew = rssOf() - rssBefore
    return [
      {
        what: `last page of a ${TRANSCRIPT_MB} MB transcript (p50, HTTP round trip)`,
        value: median(last),
        unit: 'ms',
        target: '≤ 50 ms',
        ok: median(last) <= 50,
      },
      {
        what: 'what is new after the cursor (p50, HTTP round trip)',
        value: median(next),
        unit: 'ms',
        target: '≤ 50 ms',
        ok: median(next) <= 50,
      },
      {
        what: 'three deck tabs asking the last page at once (p50, all three)',
        value: median(tabs),
        unit: 'ms',
        target: '≤ 150 ms',
        ok: median(tabs) <= 150,
      },
      {
        what: 'kernel memory grown by 100 page reads',
        value: grew,
        unit: 'MB',
        target: '≤ 50 MB',
        ok: grew <= 50,
        note: `RSS ${rssBefore.toFixed(1)} → ${(rssBefore + grew).toFixed(1)} MB`,
      },
    ]
  } finally {
    h.cleanup()
  }
}
