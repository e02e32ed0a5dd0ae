import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { git, until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { groupMembers, procStat } from '../../kernel/io/procs.js'
import { World, alive, filesOf } from './lane-views-kit.js'
import { reapKit, reapedLine } from './reap-kit.js'

// `svc lane reap` of SPEC.md 4.1, the lane and its directory: a live lane stopped first (and the stop's limits), and
// every refusal that comes before anything is touched (a symlinked, foreign, remade or non-worktree directory,
// processes inside), each changing nothing. What a reap keeps (--park, --keep, commits, play directories) is in
// lane-reap-park.

/** The reap's stop limit (30 s in use) and the runner's grace before it kills its harness's group (5 s), shortened. */
const REAP_STOP_MS = 2000
const STOP_GRACE_MS = '300'

// One home and kernel for the suite (its start is most of what a test here would cost), with the stop's limits
// shortened for every test; each test has a run of its own. The kernel is restarted only where a fault is armed, by
// the last test.
let w: World
let runs = 0
test.before(async () => {
  w = await new World('reap', {
    SERVICE_TEST_BUILD: '1',
    SERVICE_TEST_REAP_STOP_MS: String(REAP_STOP_MS),
    SERVICE_TEST_STOP_GRACE_MS: STOP_GRACE_MS,
  }).begin()
})
test.before.each(() => {
  w.run = `r${++runs}`
})
test.after(async () => {
  await w.stop()
})

const { reap, parkedFiles, capture, doneBuilder } = reapKit(() => w)

/** Stop the kernel and have the next svc call start one with a test build's environment and `env` (a kernel inherits
 * the environment of the call that starts it). Returns the stopped kernel's file. */
async function restartKernel(env: Record<string, string>) {
  const k = w.h.kernelFile()!
  await w.h.ok(['kernel', 'stop'])
  await until(() => !alive(k.pid), 'the kernel stopped')
  w.h.extraEnv = { ...w.h.extraEnv, SERVICE_TEST_BUILD: '1', ...env }
  return k
}

const groupOf = (pid: number) => procStat(pid)?.pgid
/** A builder of key b with this brief; its conversation's id. */
const startB = (prompt: string) => w.start(['--key', 'b', '--role', 'builder', '--prompt', prompt])

/** Freezes a process in a cgroup of its own (the cgroup v1 freezer, as root): it cannot run, and a SIGKILL sent to
 * it waits until it is thawed. */
function freeze(pid: number, name: string) {
  const dir = join('/sys/fs/cgroup/freezer', name)
  try {
    mkdirSync(dir)
  } catch (e) {
    throw new Error(`this test freezes a process through ${dir} (the cgroup v1 freezer, as root): ${e}`)
  }
  writeFileSync(join(dir, 'cgroup.procs'), String(pid))
  writeFileSync(join(dir, 'freezer.state'), 'FROZEN')
  const frozen = () => readFileSync(join(dir, 'freezer.state'), 'utf8').trim() === 'FROZEN'
  return {
    frozen,
    thaw: () => writeFileSync(join(dir, 'freezer.state'), 'THAWED'),
    remove: () => rmdirSync(dir),
  }
}

test('a live lane is stopped first, then reaped: directory removed and pruned, branch kept, conversation archived; brief and reports survive', async () => {
  const id = await startB(buildAndReport('built b') + w.gate('never'))
  await w.waited(`${w.run}-b-builder-i1`)
  const st = w.state(`${w.run}-b-builder-i1`)
  const dir = join(w.lanes, `${w.run}-b`)
  const head = git(dir, 'rev-parse', 'HEAD')
  const brief = readFileSync(join(w.convDir(`${w.run}-b-builder-i1`), 'lane-brief.md'), 'utf8')
  assert.is((await w.conv(id)).activity, 'working')

  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
  assert.equal(groupMembers(st.runner.pid), [], 'the lane was stopped: its process group is gone')
  assert.not.ok(alive(st.harness.pid))
  assert.not.ok(existsSync(dir))
  assert.not.ok(git(w.checkout, 'worktree', 'list', '--porcelain').includes(dir), 'the worktree is pruned')
  assert.is(git(w.checkout, 'rev-parse', `refs/heads/${w.run}/b`), head, 'the branch is kept')
  const conv = await w.conv(id)
  assert.equal([conv.archived, conv.activity], [true, 'stopped'])
  assert.not.ok(
    (JSON.parse(await w.h.ok(['conv', 'list', '--json'])) as any[]).some((c) => c.id === id),
    'archived: gone from the conversation list',
  )
  assert.match(await w.h.ok(['lane', 'list']), new RegExp(`\n${id} +${w.run}/b +builder +i1 +archived +done `))
  assert.is(
    readFileSync(join(w.convDir(`${w.run}-b-builder-i1`), 'lane-brief.md'), 'utf8'),
    brief,
    'the brief survives',
  )
  const again = await w.h.svc(['lane', 'wait', `${w.run}-b-builder-i1`])
  assert.equal([again.code, again.stdout], [0, 'built b\n'], 'the report survives')

  assert.equal(await reap(id), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: conv ${id} (${w.run}-b-builder-i1) is already reaped and archived\n`,
  })
  assert.equal(await reap(w.s.root), {
    code: 1,
    stdout: '',
    stderr: `svc: conv ${w.s.root} (c${w.s.root}) is not a lane\n`,
  })
})

test('a harness that ignores SIGTERM: the stop escalates to SIGKILL and the reap of the live lane completes within 30 s', async () => {
  const id = await startB(`trap '' TERM\n${w.mark('b')}\nwhile true; do sleep 0.1; done`)
  await w.reached('b')
  const st = w.state(`${w.run}-b-builder-i1`)
  const dir = join(w.lanes, `${w.run}-b`)
  const t0 = Date.now()
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
  assert.ok(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`)
  assert.not.ok(alive(st.harness.pid))
  assert.equal(groupMembers(st.runner.pid), [])
  assert.is((await w.conv(id)).archived, true)
})

test('a harness that ignores SIGTERM in a session of its own is still ended by the stop: the reap completes and nothing of the lane runs on', async () => {
  // The harness leaves the lane's process group (same pid, a session of its own) and ignores SIGTERM: the runner
  // adopted it, and its stop ends every process below it, whatever the group.
  const id = await startB(`trap '' TERM\n${w.mark('b')}\nexec setsid sleep 1000`)
  await w.reached('b')
  const harness = await w.harnessPid(`${w.run}-b-builder-i1`)
  await until(() => readFileSync(`/proc/${harness}/cmdline`, 'utf8').startsWith('sleep'), 'the harness became sleep')
  const st = w.state(`${w.run}-b-builder-i1`)
  assert.is.not(groupOf(harness), st.runner.pid, "the harness left its runner's process group")
  const dir = join(w.lanes, `${w.run}-b`)
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
  assert.not.ok(alive(harness), 'the harness is gone')
  assert.not.ok(alive(st.runner.pid), 'the runner is gone')
})

test("a harness still alive after the reap's stop limit (30 s in use) is refused and nothing changes; once it is gone the reap completes", async () => {
  const id = await startB(`${w.mark('b')}\nexec sleep 1000`)
  await w.reached('b')
  const harness = await w.harnessPid(`${w.run}-b-builder-i1`)
  await until(() => readFileSync(`/proc/${harness}/cmdline`, 'utf8').startsWith('sleep'), 'the harness became sleep')
  // Frozen, it cannot be killed until it is thawed, as a process in uninterruptible sleep (on a hung mount).
  const frozen = freeze(harness, `svc-reap-${process.pid}`)
  await until(frozen.frozen, 'the harness frozen')
  const dir = join(w.lanes, `${w.run}-b`)
  const before = await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`)
  try {
    const t0 = Date.now()
    assert.equal(await reap(`${w.run}-b-builder-i1`), {
      code: 1,
      stdout: '',
      stderr: `svc: refused: the harness is still alive after ${REAP_STOP_MS / 1000} s\n`,
    })
    assert.ok(Date.now() - t0 >= REAP_STOP_MS - 100, `waited ${Date.now() - t0} ms`)
    assert.ok(alive(harness))
    assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before, 'a refused reap changes nothing')
  } finally {
    process.kill(harness, 'SIGKILL')
    frozen.thaw()
  }
  await until(() => !alive(harness), 'the harness gone')
  frozen.remove()
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
})

test("a lane directory swapped for a symlink is refused, nothing changed: outside the lanes root, or another lane's directory", async () => {
  const id = await doneBuilder('b')
  await doneBuilder('c')
  const dir = join(w.lanes, `${w.run}-b`)
  const elsewhere = join(w.h.home, 'elsewhere')
  mkdirSync(elsewhere)
  renameSync(dir, join(elsewhere, `${w.run}-b`))
  symlinkSync(join(elsewhere, `${w.run}-b`), dir)
  const before = await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`)
  assert.equal(await reap(`${w.run}-b-builder-i1`, '--park'), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: ${join(elsewhere, `${w.run}-b`)} is outside the lanes root ${w.lanes}\n`,
  })
  assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before)

  unlinkSync(dir)
  const other = join(w.lanes, `${w.run}-c`)
  symlinkSync(other, dir)
  const otherBefore = await capture(`${w.run}-c-builder-i1`, other, `${w.run}/c`)
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: ${dir} resolves to ${other}, which is not this lane's directory\n`,
  })
  assert.equal(
    await capture(`${w.run}-c-builder-i1`, other, `${w.run}/c`),
    otherBefore,
    "the other lane's directory is untouched",
  )
  assert.is((await w.conv(id)).archived, false)

  unlinkSync(dir)
  renameSync(join(elsewhere, `${w.run}-b`), dir)
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
})

test('processes with their working directory inside are refused, each PID and command line listed; a live lane is not even stopped', async () => {
  const id = await startB(buildAndReport('built b') + w.gate('never'))
  await w.waited(`${w.run}-b-builder-i1`)
  const dir = join(w.lanes, `${w.run}-b`)
  const harness = await w.harnessPid(`${w.run}-b-builder-i1`)
  const strays: ChildProcess[] = []
  const stray = (cwd: string, secs: string) => {
    const c = spawn('sleep', [secs], { cwd, detached: true, stdio: 'ignore' })
    strays.push(c)
    return c.pid!
  }
  try {
    const p1 = stray(dir, '300')
    await until(() => alive(p1), 'the stray process')
    const before = await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`)
    assert.equal(await reap(`${w.run}-b-builder-i1`), {
      code: 1,
      stdout: '',
      stderr: `svc: refused: a process has its working directory inside ${dir}: ${p1} (sleep 300)\n`,
    })
    assert.ok(alive(harness), 'the live lane was not stopped for a reap that had to be refused')
    assert.is((await w.conv(id)).activity, 'working')
    assert.ok(alive(p1), 'a reap never kills a process')
    assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before)

    const p2 = stray(join(dir, 'src'), '301')
    await until(() => alive(p2), 'the second stray process')
    const [a, b] = [p1, p2].sort((x, y) => x - y)
    const cmd = (p: number) => (p === p1 ? 'sleep 300' : 'sleep 301')
    assert.equal(await reap(`${w.run}-b-builder-i1`, '--park'), {
      code: 1,
      stdout: '',
      stderr:
        `svc: refused: 2 processes have their working directory inside ${dir}: ${a} (${cmd(a)}), ${b} (` +
        `${cmd(b)})\n`,
    })
    assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before)
  } finally {
    for (const c of strays) c.kill('SIGKILL')
  }
  await until(() => strays.every((c) => !alive(c.pid!)), 'the strays gone')
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
})

test('a builder directory that is no longer a git worktree is refused before the lane is stopped, and nothing changes', async () => {
  const id = await startB(buildAndReport('built b') + w.gate('never'))
  await w.waited(`${w.run}-b-builder-i1`)
  const dir = join(w.lanes, `${w.run}-b`)
  const harness = await w.harnessPid(`${w.run}-b-builder-i1`)
  renameSync(join(dir, '.git'), join(dir, 'was.git'))
  const files = filesOf(dir)
  const worktrees = git(w.checkout, 'worktree', 'list', '--porcelain')
  assert.equal(await reap(`${w.run}-b-builder-i1`, '--park'), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: ${dir} is no longer a git worktree; look at it, then remove it yourself\n`,
  })
  assert.ok(alive(harness), 'the live lane was not stopped for a reap that had to be refused')
  assert.equal([filesOf(dir), git(w.checkout, 'worktree', 'list', '--porcelain')], [files, worktrees])
  assert.equal([(await w.conv(id)).archived, parkedFiles(`${w.run}-b-builder-i1`)], [false, []])
  renameSync(join(dir, 'was.git'), join(dir, '.git'))
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
})

test("a directory removed and made again by hand at a lane's path (worktree or play) is refused by the reap on one line; nothing touched, nothing archived", async () => {
  const b = await w.start(['--key', 'b', '--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait'])
  const p = await w.start(['--key', 'p', '--role', 'play', '--harness', 'none', '--prompt', 'x', '--no-wait'])
  const bdir = join(w.lanes, `${w.run}-b`)
  const pdir = join(w.lanes, `${w.run}-p-play-i1`)
  git(w.checkout, 'worktree', 'remove', '--force', bdir)
  git(w.checkout, 'worktree', 'add', '--detach', bdir, 'HEAD')
  writeFileSync(join(bdir, 'mine.txt'), 'made by hand\n')
  rmSync(pdir, { recursive: true })
  mkdirSync(pdir)
  writeFileSync(join(pdir, 'mine.txt'), 'made by hand\n')
  for (const [id, dir] of [
    [b, bdir],
    [p, pdir],
  ]) {
    const files = filesOf(dir)
    assert.equal(await reap(id, '--park'), {
      code: 1,
      stdout: '',
      stderr:
        `svc: refused: ${dir} is not the directory this lane was launched in (it was removed and made again ` +
        `since); nothing was touched\n`,
    })
    assert.equal(filesOf(dir), files)
    assert.is((await w.conv(id)).archived, false)
  }
  assert.is(git(bdir, 'status', '--porcelain'), '?? mine.txt')
})

test('archiving fails: the reap still succeeds and says how to archive from the Command Deck', async () => {
  const id = await doneBuilder('b')
  const dir = join(w.lanes, `${w.run}-b`)
  const k = await restartKernel({ SERVICE_FAULT_ARCHIVE: '1' })
  const r = await reap(`${w.run}-b-builder-i1`)
  assert.ok(w.h.kernelFile()!.pid !== k.pid)
  assert.equal(r, {
    code: 0,
    stdout:
      reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`) +
      `reaped, but archiving failed: injected archive failure; archive conv ${id} from the Command Deck\n`,
    stderr: '',
  })
  assert.not.ok(existsSync(dir))
  assert.is((await w.conv(id)).archived, false)
  assert.is((await w.h.svc(['conv', 'archive', id])).code, 0)
  assert.is((await w.conv(id)).archived, true)
})

test.run()
