import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, until } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { liveDescendants } from '../../kernel/io/subreaper.js'

/** One runner process drives every lane of a home, each lane under a supervisor of its own. A crash of that runner
 * is its lanes' end: nothing of them runs on, the kernel sees them ended, and the next start gets a new runner. */

let h: TestHome
let s: Setup
test.before(async () => {
  h = new TestHome('runner-crash')
  s = await setupProject(h)
})
test.after(async () => {
  await h.stop()
})

const stateOf = (name: string) =>
  JSON.parse(readFileSync(join(h.service, 'agents', `conv-${name}`, 'state.json'), 'utf8'))
const parent = (pid: number) => Number(/^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
/** The home's runner: the first process above a lane's supervisor that runs the runner's entry. */
function runnerAbove(pid: number): number | undefined {
  for (let p = parent(pid), up = 0; p > 1 && up < 4; p = parent(p), up++)
    if (/runner-main\.js\0serve\0$/.test(readFileSync(`/proc/${p}/cmdline`, 'utf8'))) return p
  return undefined
}
const start = (key: string, prompt: string) =>
  h.ok(['lane', 'start', '--run', 'r1', '--key', key, '--role', 'play', '--prompt', prompt], { env: s.env })
const running = (name: string) =>
  until(() => {
    try {
      const st = stateOf(name)
      return st.harness && alive(st.harness.pid) && st
    } catch {
      return undefined
    }
  }, `lane ${name} running`)

test('a crash of the home runner ends every lane it drove; the kernel sees them ended; the next lane gets a new runner', async () => {
  // The first lane leaves a process in a session of its own behind it, as a lane may.
  await start('a', 'setsid sleep 61 < /dev/null > /dev/null 2>&1 & sleep 60')
  await start('b', 'sleep 60')
  const lanes = [await running('r1-a-play-i1'), await running('r1-b-play-i1')]
  // The home's runner, found above the first lane's supervisor (another runner may be starting or ending beside it).
  const runner = runnerAbove(lanes[0].runner.pid)
  assert.ok(runner, 'the home runner runs')
  await until(() => liveDescendants(runner!).length >= 6, "both lanes' supervisors, harnesses and the left process")
  const served = liveDescendants(runner!)
  for (const st of lanes) assert.ok(served.includes(st.runner.pid), `supervisor ${st.runner.pid} is below the runner`)

  process.kill(runner!, 'SIGKILL')
  // Killed, the runner leaves its socket behind: the next start must not take it for a runner that answers.
  assert.ok(existsSync(join(h.service, 'runner.sock')))
  // Where the kernel runs as root each lane is a PID namespace, which ends with its supervisor, whatever its
  // processes did; elsewhere the supervisors end with the runner and their harnesses are orphans, as before.
  const gone = process.getuid?.() === 0 ? served : lanes.map((st) => st.runner.pid)
  await until(() => !gone.some(alive), 'every process the runner served gone')

  // The next kernel decides at its start (no grace in a test build): both lanes ended, their runner gone.
  await h.ok(['kernel', 'stop'])
  const env = { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '0' }
  for (const name of ['r1-a-play-i1', 'r1-b-play-i1']) {
    const v = JSON.parse(await h.ok(['conv', 'show', name, '--json'], { env }))
    assert.is(v.activity, 'stopped', name)
    assert.is(v.evidence.source, 'reconcile', name)
  }

  // A new lane starts all the same, under a new runner.
  await start('c', 'sleep 60')
  const c = await running('r1-c-play-i1')
  const next = runnerAbove(c.runner.pid)
  assert.ok(next && next !== runner, 'a new runner')
  assert.ok(liveDescendants(next!).includes(c.runner.pid))
})

test.run()
