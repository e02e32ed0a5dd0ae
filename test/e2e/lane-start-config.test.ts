import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { git } from '../helpers/home.js'
import { DEFAULT_CONFIG, LaneWorld, sha } from './lane-start-kit.js'

// `svc lane start`, what the project and the machine bring (SPEC.md 4.1 start, 8): the role's configured model,
// sparse checkout, a checkout hook that fails, the base fetched before each launch (launch rule 5), a harness that
// cannot be spawned. The checkout of each role is in lane-start.

// One home and kernel for the suite (its start is most of what a test here would cost): each test launches in a run
// of its own, with projects.yaml as the suite began and a directory of its own for what its lanes write.
let w: LaneWorld
let run = ''
let runs = 0
test.before(async () => {
  w = new LaneWorld('lane')
  await w.begin()
})
test.before.each(() => {
  run = `r${++runs}`
  w.nextTest(run)
})
test.after(async () => {
  await w.stop()
})

test('the role model (and effort, harness) from projects.yaml is used when --model is absent; --model overrides it', async () => {
  writeProjectsYaml(w.h.service, w.project, {
    gauntlet: { roles: { ...DEFAULT_CONFIG.gauntlet!.roles, play: { model: 'model-p', harness: 'none' } } },
  })
  const p = await w.started(['--run', run, '--key', 'p', '--role', 'play', '--prompt', 'x'])
  const vp = await w.show(p.id)
  assert.equal([vp.model, vp.harness], ['model-p', 'none'])
  const a = await w.started(['--run', run, '--key', 'a', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  const va = await w.show(a.id)
  assert.is(va.model, 'model-b')
  assert.is(va.effort, 'high')
  const b = await w.started([
    '--run',
    run,
    '--key',
    'b',
    '--role',
    'builder',
    '--harness',
    'none',
    '--model',
    'other',
    '--effort',
    'medium',
    '--prompt',
    'x',
  ])
  const vb = await w.show(b.id)
  assert.is(vb.model, 'other')
  assert.is(vb.effort, 'medium')
})

test('sparse_checkout is applied to each new worktree, and only to it', async () => {
  writeProjectsYaml(w.h.service, w.project, {
    gauntlet: { sparse_checkout: ['src/'], roles: { builder: { model: 'm' }, orchestrator: { model: 'm' } } },
  })
  const b = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  assert.equal(readdirSync(b.cwd).sort(), ['.git', 'src'])
  assert.is(readFileSync(join(b.cwd, 'src', 'app.sh'), 'utf8'), 'echo app\n')
  assert.is(git(b.cwd, 'status', '--porcelain'), '')
  const o = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'orchestrator',
    '--harness',
    'none',
    '--prompt',
    'x',
  ])
  assert.equal(readdirSync(o.cwd).sort(), ['.git', 'src'])
  assert.ok(existsSync(join(w.project.checkout, 'README.md')), 'the checkout keeps every file')
  assert.is(git(w.project.checkout, 'status', '--porcelain'), '')
})

test('a checkout that fails after the worktree was added leaves nothing: no directory, worktree, branch or conversation', async () => {
  // The hook's exit status is checkout's (githooks(5)): the new worktree's files are written, then the launch fails.
  const hooks = join(w.project.checkout, '.git', 'hooks')
  mkdirSync(hooks, { recursive: true })
  writeFileSync(join(hooks, 'post-checkout'), '#!/bin/sh\necho "checkout hook says no" >&2\nexit 3\n', { mode: 0o755 })
  for (const sparse of [undefined, ['src/']]) {
    writeProjectsYaml(w.h.service, w.project, {
      gauntlet: { ...(sparse ? { sparse_checkout: sparse } : {}), roles: { builder: { model: 'm' } } },
    })
    await w.refused(
      ['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'],
      new RegExp(`^svc: git hook failed in .*${run}-k: checkout hook says no\n$`),
    )
  }
  // A hook that lets it: it runs in the new worktree with the arguments `git worktree add` gives it.
  const seen = join(w.h.dir, 'hook-args')
  writeFileSync(join(hooks, 'post-checkout'), `#!/bin/sh\necho "$(pwd) $@" > '${seen}'\n`, { mode: 0o755 })
  const b = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  assert.ok(existsSync(join(b.cwd, 'src', 'app.sh')), 'the same launch succeeds once the hook lets it')
  assert.is(readFileSync(seen, 'utf8'), `${b.cwd} ${'0'.repeat(40)} ${sha(b.cwd)} 1\n`)
  // A hook where core.hooksPath puts it runs too, with none left in .git/hooks: its path is git's to name.
  rmSync(join(hooks, 'post-checkout'))
  const elsewhere = join(w.h.dir, 'hooks-elsewhere')
  mkdirSync(elsewhere)
  writeFileSync(join(elsewhere, 'post-checkout'), '#!/bin/sh\necho "the hooks path says no" >&2\nexit 3\n', {
    mode: 0o755,
  })
  git(w.project.checkout, 'config', 'core.hooksPath', elsewhere)
  try {
    await w.refused(
      ['--run', run, '--key', 'k2', '--role', 'builder', '--harness', 'none', '--prompt', 'x'],
      new RegExp(`^svc: git hook failed in .*${run}-k2: the hooks path says no\n$`),
    )
  } finally {
    // The suite's later tests launch with no hook.
    git(w.project.checkout, 'config', '--unset', 'core.hooksPath')
  }
})

test('the base is fetched before every git-backed launch', async () => {
  const before = sha(w.project.checkout, 'origin/main')
  const other = join(w.h.dir, 'other')
  git(w.h.dir, 'clone', '-q', w.project.origin, other)
  writeFileSync(join(other, 'new.txt'), 'new\n')
  git(other, 'add', 'new.txt')
  git(other, 'commit', '-q', '-m', 'pushed elsewhere')
  git(other, 'push', '-q', 'origin', 'main')
  const pushed = sha(other)
  assert.is(sha(w.project.checkout, 'origin/main'), before, 'the checkout has not seen it yet')
  const b = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  assert.is(sha(b.cwd), pushed)
  assert.is(readFileSync(join(b.cwd, 'new.txt'), 'utf8'), 'new\n')

  writeFileSync(join(other, 'newer.txt'), 'newer\n')
  git(other, 'add', 'newer.txt')
  git(other, 'commit', '-q', '-m', 'pushed again')
  git(other, 'push', '-q', 'origin', 'main')
  const v = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'verifier',
    '--model',
    'm',
    '--harness',
    'none',
    '--prompt',
    'x',
  ])
  assert.is(sha(v.cwd), sha(other))
})

test('a spawn error ends the wait at once: exit 1 and one error line', async () => {
  // A home and kernel of its own, whose PATH holds no claude.
  const w = new LaneWorld('lane')
  try {
    await w.begin({ PATH: '/usr/bin:/bin' })
    await failsToSpawn(w)
  } finally {
    await w.stop()
  }
})

async function failsToSpawn(w: LaneWorld) {
  const r = await w.start(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'claude', '--prompt', 'x'])
  const exited = Date.now()
  // At once: soon after the runner recorded the error, not after the 180 s wait for a start.
  const spawnError = JSON.parse(w.agentFile(`${run}-k-builder-i1`, 'state.json')).spawnError
  assert.ok(exited - spawnError.at < 10_000, `the wait ended ${exited - spawnError.at} ms after the spawn error`)
  assert.is(r.code, 1)
  assert.is(r.stdout, '')
  const id = (await w.show(`${run}-k-builder-i1`)).id
  assert.is(
    r.stderr,
    `svc: lane ${run}/k builder i1 (conv ${id}) failed to start: claude: command not found (spawn claude ENOENT)\n`,
  )
  assert.is((await w.show(id)).activity, 'failed-to-start')
}

test.run()
