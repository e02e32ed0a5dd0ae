import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import { TestHome, launchGroupsOfHome, processesOfHome, until } from '../helpers/home.js'

/** A refused lane start asserts that no new process appeared. The kernel runs short-lived git and lsof children at
 * any time, all in its own process group, while a launch makes a runner, its own group, with its harness inside: so
 * the check counts process groups, the kernel's left out. Here a stand-in kernel spawns a child every few
 * milliseconds the way the real one runs git, and stand-in runners are detached groups. */

const h = new TestHome('launch-groups')
const started: ChildProcess[] = []

/** A detached process group of this home (the kernel and runners are spawned so). */
function group(script: string): number {
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore', env: h.env() })
  started.push(child)
  return child.pid!
}

test.after(async () => {
  for (const c of started)
    try {
      process.kill(-c.pid!, 'SIGKILL')
    } catch {}
  await h.stop()
})

test('no-new-process check of a refused start: the kernel’s short-lived children are not counted, a new runner group is', async () => {
  const kernel = group('while :; do sleep 0.01 & wait; done')
  const runner = group('sleep 30 & wait')
  await until(() => processesOfHome(h.service).length >= 4, 'the stand-ins and their children')
  // The condition of the flake: scans of the home's processes a moment apart see processes the first did not.
  const first = processesOfHome(h.service)
  const newcomers = await until(
    () => processesOfHome(h.service).filter((p) => !first.includes(p)).length,
    'a new short-lived child of the kernel',
    2_000,
    5,
  )
  assert.ok(newcomers > 0)
  // The launch groups stay the same meanwhile: only the runner's.
  for (let i = 0; i < 20; i++) {
    assert.equal(launchGroupsOfHome(h.service, kernel), [runner], `sample ${i}`)
    await new Promise((r) => setTimeout(r, 5))
  }
  // A launch that did make a runner is still caught.
  const second = group('sleep 30 & wait')
  await until(() => launchGroupsOfHome(h.service, kernel).includes(second), 'the second runner group')
  assert.equal(
    launchGroupsOfHome(h.service, kernel),
    [runner, second].sort((a, b) => a - b),
  )
})

test.run()
