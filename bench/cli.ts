import { benchHome, SVC, timeCommand, versus, type Figure } from './lib.js'
import { createSampleProject, writeProjectsYaml } from '../cli/demo/sample-project.js'
import { remotePort } from '../kernel/port/client.js'
import { httpTransport, ensureKernel } from '../cli/connect.js'
import { processIo } from '../cli/io.js'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'

const RUNS = 15

/** `svc --version` and `svc lane list` (200 lanes, 100 live worktrees) against `node -e 0`, measured alternately. */
export async function bench(): Promise<Figure[]> {
  const h = benchHome('cli')
  try {
    const node = () => timeCommand(process.execPath, ['-e', '0'])
    const version = await versus(RUNS, () => timeCommand(process.execPath, [SVC, '--version'], { env: h.env }), node)
    writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n')
    const project = createSampleProject(join(h.home, 'src'))
    writeProjectsYaml(h.service, project, {
      gauntlet: { roles: { builder: { model: 'm', harness: 'none' }, play: { model: 'm', harness: 'none' } } },
    })
    const io = { ...processIo(), env: h.env }
    const k = (await ensureKernel(io))!
    const port = remotePort(httpTransport(k))
    const root = await port.convNew({ harness: 'none', project: project.key })
    // 100 builders with worktrees (harness none: live, starting) and 100 play lanes.
    for (let i = 0; i < 100; i++) {
      await port.laneStart({
        conversation: root.id,
        run: 'bench',
        key: `b${i}`,
        role: 'builder',
        prompt: 'x',
        noWait: true,
      })
      await port.laneStart({
        conversation: root.id,
        run: 'bench',
        key: `p${i}`,
        role: 'play',
        prompt: 'x',
        noWait: true,
      })
    }
    await timeCommand(process.execPath, [SVC, 'lane', 'list'], { env: h.env })
    const list = await versus(RUNS, () => timeCommand(process.execPath, [SVC, 'lane', 'list'], { env: h.env }), node)
    return [
      {
        what: 'svc --version',
        value: version.a,
        unit: 'ms',
        target: '≤ 1.5× node -e 0',
        ok: version.a <= 1.5 * version.b,
        floor: { what: 'node -e 0', value: version.b },
      },
      {
        what: 'svc lane list (200 lanes, 100 live worktrees)',
        value: list.a,
        unit: 'ms',
        target: '≤ 2.5× node -e 0',
        ok: list.a <= 2.5 * list.b,
        floor: { what: 'node -e 0', value: list.b },
      },
    ]
  } finally {
    h.cleanup()
  }
}
