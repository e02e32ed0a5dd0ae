import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { writeProjectsYaml } from '../cli/demo/sample-project.js'
import { remotePort } from '../kernel/port/client.js'
import { bigProject } from './big-repo.js'
import { benchHome, type Figure } from './lib.js'

/** The kernel's peak resident memory so far (VmHWM), in MB. */
const peakMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** `svc lane reap --park` of a lane holding a new 500 MB file: the slowest answer the kernel gave another caller
 * during the park, and how much its peak memory grew. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('park')
  try {
    writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n')
    const p = bigProject(join(h.home, 'src'), 100)
    writeProjectsYaml(h.service, { ...p }, { gauntlet: { roles: { builder: { model: 'm', harness: 'none' } } } })
    const k = (await ensureKernel({ ...processIo(), env: h.env }))!
    const port = remotePort(httpTransport(k))
    const root = (await port.convNew({ harness: 'none', project: p.key })).id
    const lane = await port.laneStart({
      conversation: root,
      run: 'r',
      key: 'big',
      role: 'builder',
      prompt: 'x',
      noWait: true,
    })
    const fd = openSync(join(lane.lane.cwd, 'big.bin'), 'w')
    for (let i = 0; i < 500; i++) writeSync(fd, randomBytes(1024 * 1024))
    closeSync(fd)
    await port.laneList({})
    const before = peakMb(k.pid)
    let parking = true
    let slowest = 0
    const asking = (async () => {
      while (parking) {
        const t0 = performance.now()
        await port.kernelStatus({})
        slowest = Math.max(slowest, performance.now() - t0)
      }
    })()
    const t0 = performance.now()
    await port.laneReap({ lane: lane.lane.id, park: true })
    const took = performance.now() - t0
    parking = false
    await asking
    const grown = peakMb(k.pid) - before
    return [
      {
        what: 'reap --park of a 500 MB file: slowest answer to another caller meanwhile',
        value: slowest,
        unit: 'ms',
        target: '≤ 100 ms',
        ok: slowest <= 100,
        note: `the park took ${(took / 1000).toFixed(1)} s`,
      },
      {
        what: "reap --park of a 500 MB file: growth of the kernel's peak memory",
        value: grown,
        unit: 'MB',
        target: '≤ 50 MB',
        ok: grown <= 50,
      },
    ]
  } finally {
    h.cleanup()
  }
}
