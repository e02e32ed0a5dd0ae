import { writeFileSync, appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { writeProjectsYaml } from '../cli/demo/sample-project.js'
import { remotePort } from '../kernel/port/client.js'
import { bigProject } from './big-repo.js'
import { benchHome, median, SVC, timeCommand, type Figure } from './lib.js'

/** `svc lane reap --park` of a worktree with 1000 changed files (modified, new, deleted). */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('reap')
  try {
    writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n')
    const p = bigProject(join(h.home, 'src'), 5000)
    writeProjectsYaml(h.service, { ...p }, { gauntlet: { roles: { builder: { model: 'm', harness: 'none' } } } })
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const port = remotePort(httpTransport(k))
    const root = (await port.convNew({ harness: 'none', project: p.key })).id
    const times: number[] = []
    for (let r = 0; r < 3; r++) {
      const lane = await port.laneStart({
        conversation: root,
        run: 'r',
        key: `k${r}`,
        role: 'builder',
        prompt: 'x',
        noWait: true,
      })
      const dir = lane.lane.cwd
      for (let i = 0; i < 1000; i++) {
        const folder = join(dir, `d${String(i % 20).padStart(2, '0')}`, `s${Math.floor(i / 20) % 50}`)
        if (i % 3 === 0) appendFileSync(join(folder, `f${i}.txt`), 'changed\n')
        else {
          mkdirSync(join(dir, 'new', String(i % 10)), { recursive: true })
          writeFileSync(join(dir, 'new', String(i % 10), `n${i}.bin`), Buffer.from([0, 1, 2, i % 256]))
        }
      }
      times.push(await timeCommand(process.execPath, [SVC, 'lane', 'reap', lane.lane.id, '--park'], { env: h.env }))
    }
    return [
      {
        what: 'svc lane reap --park, 1000 changed files',
        value: median(times),
        unit: 'ms',
        target: '≤ 3000 ms',
        ok: median(times) <= 3000,
      },
    ]
  } finally {
    h.cleanup()
  }
}
