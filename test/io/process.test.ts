import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { runProcess } from '../../kernel/io/process.js'

// Starting a program holds the thread until it is forked and executing: a burst of runs starts one program per turn
// of the event loop, so that what else waits (another caller's answer) runs in between.

const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
const realSpawn = cp.spawn
let started = 0

test.before(() => {
  // Counted on its way to the real spawn: the programs run for real.
  cp.spawn = function (this: unknown, ...args: unknown[]) {
    started++
    return (realSpawn as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof cp.spawn
  syncBuiltinESMExports()
})
test.after(() => {
  cp.spawn = realSpawn
  syncBuiltinESMExports()
})

const turn = () => new Promise((r) => setImmediate(r))

test('a burst of runs starts one program per turn of the loop, in the order asked, each run whole', async () => {
  started = 0
  const runs = [1, 2, 3, 4, 5].map((n) => runProcess(['sh', '-c', `echo ${n}`]))
  assert.is(started, 1, 'one program started in the turn that asked for five')
  const seen = [started]
  while (started < 5) {
    await turn()
    seen.push(started)
  }
  assert.ok(
    seen.every((n, i) => i === 0 || n - seen[i - 1] <= 1),
    `never two starts in one turn: ${seen}`,
  )
  const ran = await Promise.all(runs)
  assert.equal(
    ran.map((r) => [r.code, r.stdout]),
    [1, 2, 3, 4, 5].map((n) => [0, `${n}\n`]),
  )
})

test('a run asked alone starts at once, and one that cannot start does not hold up the next', async () => {
  await turn()
  started = 0
  const missing = runProcess(['no-such-program-here'])
  assert.is(started, 1, 'started in the turn that asked')
  const next = runProcess(['sh', '-c', 'echo after'])
  const gone = await missing
  assert.is(gone.missing, true)
  assert.is((await next).stdout, 'after\n')
})

test.run()
