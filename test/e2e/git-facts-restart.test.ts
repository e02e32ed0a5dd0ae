import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { alive, git, until } from '../helpers/home.js'
import { World } from './lane-views-kit.js'

// A restarted kernel shows the lanes' git facts at once from those the last kernel saved, while it reads every
// worktree again behind; what moved while no kernel ran is then announced as a `git` change and shown.

let w: World
test.before.each(async () => {
  w = await new World('git-restart').begin()
})
test.after.each(async () => {
  writeFileSync(gateFile(), '')
  await w.stop()
})

const gateFile = () => join(w.h.home, 'git-status-may-run')

/** A `git` first on the kernel's PATH whose `git status` waits until the gate file exists: while it is shut, the
 * kernel cannot read any worktree's facts, so whatever it shows comes from what it saved. */
function gatedGit(): Record<string, string> {
  const bin = join(w.h.home, 'gated-bin')
  mkdirSync(bin, { recursive: true })
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  const wrapper = join(bin, 'git')
  writeFileSync(
    wrapper,
    `#!/bin/sh\nif [ "$1" = status ]; then while [ ! -e '${gateFile()}' ]; do sleep 0.05; done; fi\nexec '${real}' ` +
      `"$@"\n`,
  )
  chmodSync(wrapper, 0o755)
  return { PATH: `${bin}:${process.env.PATH}` }
}

async function stopKernel() {
  const k = w.h.kernelFile()!
  await w.h.ok(['kernel', 'stop'])
  await until(() => !alive(k.pid), 'the kernel stopped')
}

test('after a restart the first tree shows the saved facts without reading a worktree; an edit made meanwhile is then announced and shown', async () => {
  const a = await w.idleLane('a')
  const b = await w.idleLane('b')
  // A directory below the top one: a file written there changes neither HEAD, the index nor the top directory.
  mkdirSync(join(a.dir, 'src', 'deep'), { recursive: true })
  let port = await w.h.port()
  const before = await port.deckTree({})
  const laneOf = (tree: typeof before, name: string) => Object.values(tree.lanes).find((l) => l.name === name)!
  assert.is(laneOf(before, a.name).git?.dirty, false)
  await stopKernel()
  assert.ok(existsSync(join(w.h.service, 'git-facts.json')), 'the stopped kernel saved its git facts')

  writeFileSync(join(a.dir, 'src', 'deep', 'made-while-stopped.txt'), 'new\n')
  w.h.extraEnv = gatedGit()
  port = await w.h.port()
  const first = await Promise.race([
    port.deckTree({}),
    new Promise<never>((_, no) => setTimeout(() => no(new Error('the first tree waited on git status')), 10_000)),
  ])
  for (const lane of [a, b]) {
    const was = laneOf(before, lane.name).git
    const now = laneOf(first, lane.name).git
    assert.equal(now, was, `${lane.name}: the saved facts, read when the last kernel read them`)
  }

  const last = (await port.changes({ after: 0, timeoutMs: 0 })).last
  writeFileSync(gateFile(), '')
  const news = await until(async () => {
    const r = await port.changes({ after: last, timeoutMs: 1000 })
    return r.changes.some((c) => c.name === a.name && c.what === 'git')
  }, `a git change of ${a.name}`)
  assert.ok(news)
  const read = laneOf(await port.deckTree({}), a.name).git
  assert.is(read?.dirty, true, 'the edit made while no kernel ran is shown once read')
  assert.ok(read!.asOf > laneOf(before, a.name).git!.asOf)
  assert.is(read?.head, git(a.dir, 'rev-parse', 'HEAD'))
})

test('a saved facts file that is not JSON is named in the log and every worktree is read as on a first start', async () => {
  const a = await w.idleLane('a')
  await stopKernel()
  writeFileSync(join(w.h.service, 'git-facts.json'), '{"worktrees": [')
  writeFileSync(join(a.dir, 'new-file.txt'), 'new\n')
  const port = await w.h.port()
  const lane = await port.laneGet({ lane: a.name })
  assert.is(lane.git?.dirty, true)
  assert.match(w.h.kernelLog(), /git-facts\.json is unreadable \(.+\); every worktree's git facts are read anew/)
})

test.run()
