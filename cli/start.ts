import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runDemoGauntlet } from './demo/gauntlet.js'
import { runDemoWorker } from './demo/worker.js'
import { createSampleProject, gitIn, writeProjectsYaml } from './demo/sample-project.js'
import { homePaths } from '../kernel/io/home.js'
import { ROLES } from '../kernel/domain/keys.js'
import { deckUrl } from './commands/deck.js'
import { ensureKernel, resolveHome } from './connect.js'
import { lazyPort, printError } from './dispatch.js'
import { processIo } from './io.js'

/** `npm start`: the kernel and the deck, and, for a user with no project configured, a sample project with a
 * demonstration gauntlet to watch on the deck. SERVICE_DEMO_PACE scales its pauses; SERVICE_START_EXIT=1 exits
 * when the demonstration is over instead of staying up until Ctrl-C. */
async function main(): Promise<number> {
  const io = processIo()
  const home = resolveHome(io)
  const k = (await ensureKernel(io))!
  const port = lazyPort(io)
  const say = (s: string) => io.out(`${s}\n`)
  say(`kernel pid ${k.pid} on 127.0.0.1:${k.port} (home ${home})`)
  say(`Command Deck: ${await deckUrl(port, k.port)}`)
  const projectsFile = homePaths(home).projects
  const before = existsSync(projectsFile) ? readFileSync(projectsFile, 'utf8') : undefined
  const configured = before !== undefined && before.trim() !== ''
  if (!configured) {
    const dir = join(home, 'sample')
    say(`no project configured: creating a sample project in ${dir}`)
    const p = existsSync(join(dir, 'sample'))
      ? { key: 'sample', origin: join(dir, 'sample-origin.git'), checkout: join(dir, 'sample') }
      : createSampleProject(dir)
    gitIn(p.checkout, 'config', 'user.name', 'Demo Lane')
    gitIn(p.checkout, 'config', 'user.email', 'demo@localhost')
    const roles = Object.fromEntries(ROLES.map((r) => [r, { model: 'demo-shell', harness: 'shell' }]))
    writeProjectsYaml(home, p, { gauntlet: { roles } })
    const demo = {
      env: { ...process.env, SERVICE_HOME: home },
      project: p.key,
      pace: Number(io.env.SERVICE_DEMO_PACE ?? 1),
      say,
    }
    const result = await runDemoGauntlet(demo)
    const worked = await runDemoWorker(demo)
    say(
      `demonstration over: run ${result.run}, ${result.reports} reports waited on by cursor; a worker on ` +
        `${worked.issue} reported done`,
    )
    // The sample stays on disk, the configuration as it was: the next start runs the demonstration again.
    if (before === undefined) rmSync(projectsFile)
    else writeFileSync(projectsFile, before)
  }
  if (io.env.SERVICE_START_EXIT === '1') return 0
  say('the deck stays up; press Ctrl-C to stop the kernel')
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()))
  await port.kernelStop({})
  return 0
}

main().then(
  (code) => process.exit(code),
  (e) => process.exit(printError(processIo(), e)),
)
