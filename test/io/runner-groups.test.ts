import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { realAdapters, realFiles } from '../../kernel/io/adapters.js'
import { convFiles } from '../../kernel/io/home.js'
import { groupAlive, processStartTime } from '../../kernel/io/procs.js'
import { RuntimeFacts } from '../../kernel/services/runtime-facts.js'
import { Runners } from '../../kernel/services/runners.js'
import { scratchDir } from '../helpers/home.js'

const HOME = scratchDir('io-runner-groups')
mkdirSync(HOME, { recursive: true, mode: 0o700 })
const runners = new Runners(HOME, '/no-runner', new RuntimeFacts(HOME, realFiles), () => {}, realAdapters())

/** Every group this suite started, each ended by its own id at the end. */
const groups: number[] = []
function detached(script: string): ChildProcess {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' })
  groups.push(child.pid!)
  return child
}
const running = (c: ChildProcess) => new Promise((r) => c.once('spawn', r))
const ended = (c: ChildProcess) =>
  new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(undefined) : c.once('exit', r)))

/** A conversation whose runner, as its state.json says, had this pid and start time. */
function runnerWas(name: string, pid: number, start: string) {
  const files = convFiles(HOME, name)
  mkdirSync(files.dir, { recursive: true })
  writeFileSync(files.state, JSON.stringify({ runner: { pid, start } }) + '\n')
}

test('a runner that runs is stopped with its group', async () => {
  const c = detached('sleep 30')
  await running(c)
  runnerWas('alive', c.pid!, processStartTime(c.pid!)!)
  assert.ok(runners.runnerAlive('alive'))
  assert.equal(await runners.stop('alive', 5000), { stopped: true, killed: false })
  assert.not.ok(groupAlive(c.pid!))
})

test('a group whose runner has ended, with a process of it left, is still the runner’s: it is stopped', async () => {
  // The leader ends at once; the sleep it started stays in its group.
  const c = detached('sleep 30 & exit 0')
  await running(c)
  await ended(c)
  assert.ok(groupAlive(c.pid!), 'its sleep is left in the group')
  runnerWas('left', c.pid!, 'the runner’s own start')
  assert.ok(runners.runnerAlive('left'))
  assert.equal(await runners.stop('left', 5000), { stopped: true, killed: false })
  assert.not.ok(groupAlive(c.pid!))
})

test('a runner’s pid reused by a stranger that leads a group of its own: nothing is signalled', async () => {
  // What a busy machine does: the runner ended long ago and its pid now names another process, a group leader.
  const stranger = detached('sleep 30')
  await running(stranger)
  runnerWas('reused', stranger.pid!, 'the runner’s own start')
  assert.not.ok(runners.runnerAlive('reused'))
  assert.equal(await runners.stop('reused', 5000), { stopped: true, killed: false })
  assert.ok(processStartTime(stranger.pid!), 'the stranger runs on')
  assert.ok(groupAlive(stranger.pid!))
})

test.after(() => {
  for (const g of groups)
    try {
      process.kill(-g, 'SIGKILL')
    } catch {}
  rmSync(HOME, { recursive: true, force: true })
})

test.run()
