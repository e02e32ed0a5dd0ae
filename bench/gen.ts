import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ConversationRecord } from '../kernel/domain/conversation.js'
import type { Report } from '../kernel/domain/report.js'
import { convFiles } from '../kernel/io/home.js'
import type { ReportsDoc } from '../kernel/domain/report.js'

/** Write a store of `n` conversations straight to disk (as the kernel would have left them): the first `lanes` are
 * play lanes of run `bench` under a root, the rest ended root conversations; each lane gets `reportsPer` reports. */
export function writeStore(
  service: string,
  opts: { n: number; lanes: number; reportsPer: number; lanesRoot: string; createdAt?: number },
) {
  const now = opts.createdAt ?? Date.now() - 3600_000
  const write = (rec: ConversationRecord, reports: Report[]) => {
    const files = convFiles(service, rec.name)
    mkdirSync(files.dir, { recursive: true })
    writeFileSync(files.record, JSON.stringify(rec))
    if (reports.length) writeFileSync(files.reports, JSON.stringify({ reports } satisfies ReportsDoc))
  }
  write({ id: '1', name: 'root', createdAt: now, harness: 'none', cwd: service, project: 'bench' }, [])
  let at = now
  for (let i = 2; i <= opts.n; i++) {
    const lane = i - 1 <= opts.lanes
    const name = lane ? `bench-k${i}-play-i1` : `c${i}`
    const rec: ConversationRecord = lane
      ? {
          id: String(i),
          name,
          createdAt: now + i,
          parent: '1',
          harness: 'none',
          cwd: join(opts.lanesRoot, `bench-k${i}-play-i1`),
          project: 'bench',
          lane: {
            run: 'bench',
            key: `k${i}`,
            role: 'play',
            dir: `bench-k${i}-play-i1`,
            root: opts.lanesRoot,
            iteration: 1,
          },
        }
      : {
          id: String(i),
          name,
          createdAt: now + i,
          harness: 'none',
          cwd: service,
          ended: { at: now + i, source: 'stop', detail: 'bench' },
        }
    const reports: Report[] = lane
      ? Array.from({ length: opts.reportsPer }, (_, k) => ({
          seq: k + 1,
          at: ++at,
          status: k === opts.reportsPer - 1 ? 'done' : 'blocked',
          body: `BLOCKED report ${k} of lane ${i}: ${'text '.repeat(20)}`,
        }))
      : []
    write(rec, reports)
  }
}
