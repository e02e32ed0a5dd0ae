import { closeSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs'
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

/** Bytes the kernel's own threads have read and written so far (the process's total would count git's too), MB. */
function carriedMb(pid: number): number {
  let sum = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8')
    sum += Number(/^rchar: (\d+)$/m.exec(io)![1]) + Number(/^wchar: (\d+)$/m.exec(io)![1])
  }
  return sum / 2 ** 20
}

/** Another caller asking the kernel every 10 ms until `stop()`: its slowest answer, and how many took over 100 ms. */
function caller(ask: () => Promise<unknown>) {
  let asking = true
  const seen = { slowest: 0, over: 0, answers: 0 }
  const done = (async () => {
    while (asking) {
      const t0 = performance.now()
      await ask()
      const took = performance.now() - t0
      seen.slowest = Math.max(seen.slowest, took)
      seen.answers++
      if (took > 100) seen.over++
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return {
    stop: async () => {
      asking = false
      await done
      return seen
    },
  }
}

/** `svc lane reap --park` of a lane holding a new 500 MB file: the slowest answer the kernel gave another caller
 * during the park (beside the slowest the same caller got in the 5 s before it: what the machine alone costs), how
 * much its peak memory grew, and how many bytes its own threads read and wrote (git writes and reads the patch). The
 * caller asks before the park too, so that the kernel's heap has grown to what answering it takes. */
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
    const warm = caller(() => port.kernelStatus({}))
    await new Promise((r) => setTimeout(r, 5000))
    const alone = await warm.stop()
    const before = peakMb(k.pid)
    const carriedBefore = carriedMb(k.pid)
    const during = caller(() => port.kernelStatus({}))
    const t0 = performance.now()
    const parked = await port.laneReap({ lane: lane.lane.id, park: true })
    const took = performance.now() - t0
    const seen = await during.stop()
    const grown = peakMb(k.pid) - before
    const carried = carriedMb(k.pid) - carriedBefore
    const patchMb = statSync(parked.parked!.patch).size / 2 ** 20
    return [
      {
        what: 'reap --park of a 500 MB file: slowest answer to another caller meanwhile',
        value: seen.slowest,
        unit: 'ms',
        target: '≤ 100 ms',
        ok: seen.slowest <= 100,
        floor: { what: 'its slowest in the 5 s before', value: alone.slowest },
        note:
          `the park took ${(took / 1000).toFixed(1)} s; ${seen.over} of ${seen.answers} answers over 100 ms, ` +
          `${alone.over} of ${alone.answers} before`,
      },
      {
        what: "reap --park of a 500 MB file: growth of the kernel's peak memory",
        value: grown,
        unit: 'MB',
        target: '≤ 50 MB',
        ok: grown <= 50,
      },
      {
        what: "reap --park of a 500 MB file: bytes the kernel's own threads read and wrote",
        value: carried,
        unit: 'MB',
        target: `≤ 1/8 of the ${patchMb.toFixed(0)} MB patch`,
        ok: carried <= patchMb / 8,
      },
    ]
  } finally {
    h.cleanup()
  }
}
