import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git, until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { groupMembers } from '../../kernel/io/procs.js'
import { World, alive, filesOf, gitEnv, worktreeTree } from './lane-views-kit.js'
import { reapKit, reapedLine } from './reap-kit.js'
import { branchOf } from './lane-start-kit.js'

// `svc lane reap`: steps 1-7 of SPEC.md 4.1 in order, every refusal, and that a refusal changes nothing.

let w: World
test.before.each(async () => {
  w = await new World('reap').begin()
})
test.after.each(async () => {
  await w.stop()
})

const { reap, stopped, parkedFiles, svcRefs, capture, doneBuilder } = reapKit(() => w)

/** Stop the kernel and have the next svc call start one with a test build's environment (a kernel inherits the
 * environment of the call that starts it). Returns the stopped kernel's file. */
async function restartKernel(env: Record<string, string>) {
  const k = w.h.kernelFile()!
  await w.h.ok(['kernel', 'stop'])
  await until(() => !alive(k.pid), 'the kernel stopped')
  w.h.extraEnv = { ...w.h.extraEnv, SERVICE_TEST_BUILD: '1', ...env }
  return k
}

/** The reap's stop limit (30 s in use) and the runner's grace before it kills its harness's group (5 s), shortened. */
const REAP_STOP_MS = 1000
const STOP_GRACE_MS = '300'

/** Uncommitted work of every kind: modified, deleted, binary, mode-changed, untracked in a new folder with a
 * non-ASCII name and a space. */
const DIRTY = [
  'echo changed >> README.md',
  'rm src/app.sh',
  "printf '\\000\\001\\377binary' > blob.bin",
  'chmod +x work.txt',
  "mkdir -p 'new dir/ü'; printf 'untracked\\n' > 'new dir/ü/naïve file.txt'",
].join('\n')

test('a live lane is stopped first, then reaped: directory removed and pruned, branch kept, conversation archived; brief and reports survive', async () => {
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built b') + w.gate('never')])
  await w.h.ok(['lane', 'wait', 'r1-b-builder-i1'])
  const st = w.state('r1-b-builder-i1')
  const dir = join(w.lanes, 'r1-b')
  const head = git(dir, 'rev-parse', 'HEAD')
  const brief = readFileSync(join(w.convDir('r1-b-builder-i1'), 'lane-brief.md'), 'utf8')
  assert.is((await w.conv('2')).activity, 'working')

  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
  assert.equal(groupMembers(st.runner.pid), [], 'the lane was stopped: its process group is gone')
  assert.not.ok(alive(st.harness.pid))
  assert.not.ok(existsSync(dir))
  assert.not.ok(git(w.checkout, 'worktree', 'list', '--porcelain').includes(dir), 'the worktree is pruned')
  assert.is(git(w.checkout, 'rev-parse', 'refs/heads/r1/b'), head, 'the branch is kept')
  const conv = await w.conv('2')
  assert.equal([conv.archived, conv.activity], [true, 'stopped'])
  assert.not.ok((JSON.parse(await w.h.ok(['conv', 'list', '--json'])) as any[]).some((c) => c.id === '2'), 'archived: gone from the conversation list')
  assert.match(await w.h.ok(['lane', 'list']), /\n2 +r1\/b +builder +i1 +archived +done /)
  assert.is(readFileSync(join(w.convDir('r1-b-builder-i1'), 'lane-brief.md'), 'utf8'), brief, 'the brief survives')
  const again = await w.h.svc(['lane', 'wait', 'r1-b-builder-i1'])
  assert.equal([again.code, again.stdout], [0, 'built b\n'], 'the report survives')

  assert.equal(await reap('2'), { code: 1, stdout: '', stderr: 'svc: refused: conv 2 (r1-b-builder-i1) is already reaped and archived\n' })
  assert.equal(await reap(w.s.root), { code: 1, stdout: '', stderr: `svc: conv ${w.s.root} (c${w.s.root}) is not a lane\n` })
})

test('a harness that ignores SIGTERM: the stop escalates to SIGKILL and the reap of the live lane completes within 30 s', async () => {
  await restartKernel({ SERVICE_TEST_STOP_GRACE_MS: STOP_GRACE_MS })
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', `trap '' TERM\n${w.mark('b')}\nwhile true; do sleep 0.1; done`])
  await w.reached('b')
  const st = w.state('r1-b-builder-i1')
  const dir = join(w.lanes, 'r1-b')
  const t0 = Date.now()
  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
  assert.ok(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`)
  assert.not.ok(alive(st.harness.pid))
  assert.equal(groupMembers(st.runner.pid), [])
  assert.is((await w.conv('2')).archived, true)
})

test('a harness still alive after the reap\'s stop limit (30 s in use) is refused and nothing changes; once it is gone the reap completes', async () => {
  await restartKernel({ SERVICE_TEST_REAP_STOP_MS: String(REAP_STOP_MS), SERVICE_TEST_STOP_GRACE_MS: STOP_GRACE_MS })
  // The harness leaves the lane's process group (same pid, a session of its own) and ignores SIGTERM.
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', `trap '' TERM\n${w.mark('b')}\nexec setsid sleep 1000`])
  await w.reached('b')
  const harness = await w.harnessPid('r1-b-builder-i1')
  await until(() => readFileSync(`/proc/${harness}/cmdline`, 'utf8').startsWith('sleep'), 'the harness became sleep')
  const dir = join(w.lanes, 'r1-b')
  const before = await capture('r1-b-builder-i1', dir, 'r1/b')
  try {
    const t0 = Date.now()
    assert.equal(await reap('r1-b-builder-i1'), { code: 1, stdout: '', stderr: `svc: refused: the harness is still alive after ${REAP_STOP_MS / 1000} s\n` })
    assert.ok(Date.now() - t0 >= REAP_STOP_MS - 100, `waited ${Date.now() - t0} ms`)
    assert.ok(alive(harness))
    assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before, 'a refused reap changes nothing')
  } finally {
    process.kill(harness, 'SIGKILL')
  }
  await until(() => !alive(harness), 'the harness gone')
  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
})

test('a lane directory swapped for a symlink is refused, nothing changed: outside the lanes root, or another lane\'s directory', async () => {
  await doneBuilder('b')
  await doneBuilder('c')
  const dir = join(w.lanes, 'r1-b')
  const elsewhere = join(w.h.home, 'elsewhere')
  mkdirSync(elsewhere)
  renameSync(dir, join(elsewhere, 'r1-b'))
  symlinkSync(join(elsewhere, 'r1-b'), dir)
  const before = await capture('r1-b-builder-i1', dir, 'r1/b')
  assert.equal(await reap('r1-b-builder-i1', '--park'), { code: 1, stdout: '', stderr: `svc: refused: ${join(elsewhere, 'r1-b')} is outside the lanes root ${w.lanes}\n` })
  assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before)

  unlinkSync(dir)
  const other = join(w.lanes, 'r1-c')
  symlinkSync(other, dir)
  const otherBefore = await capture('r1-c-builder-i1', other, 'r1/c')
  assert.equal(await reap('r1-b-builder-i1'), { code: 1, stdout: '', stderr: `svc: refused: ${dir} resolves to ${other}, which is not this lane's directory\n` })
  assert.equal(await capture('r1-c-builder-i1', other, 'r1/c'), otherBefore, "the other lane's directory is untouched")
  assert.is((await w.conv('2')).archived, false)

  unlinkSync(dir)
  renameSync(join(elsewhere, 'r1-b'), dir)
  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
})

test('processes with their working directory inside are refused, each PID and command line listed; a live lane is not even stopped', async () => {
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built b') + w.gate('never')])
  await w.h.ok(['lane', 'wait', 'r1-b-builder-i1'])
  const dir = join(w.lanes, 'r1-b')
  const harness = await w.harnessPid('r1-b-builder-i1')
  const strays: ChildProcess[] = []
  const stray = (cwd: string, secs: string) => {
    const c = spawn('sleep', [secs], { cwd, detached: true, stdio: 'ignore' })
    strays.push(c)
    return c.pid!
  }
  try {
    const p1 = stray(dir, '300')
    await until(() => alive(p1), 'the stray process')
    const before = await capture('r1-b-builder-i1', dir, 'r1/b')
    assert.equal(await reap('r1-b-builder-i1'), { code: 1, stdout: '', stderr: `svc: refused: a process has its working directory inside ${dir}: ${p1} (sleep 300)\n` })
    assert.ok(alive(harness), 'the live lane was not stopped for a reap that had to be refused')
    assert.is((await w.conv('2')).activity, 'working')
    assert.ok(alive(p1), 'a reap never kills a process')
    assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before)

    const p2 = stray(join(dir, 'src'), '301')
    await until(() => alive(p2), 'the second stray process')
    const [a, b] = [p1, p2].sort((x, y) => x - y)
    const cmd = (p: number) => (p === p1 ? 'sleep 300' : 'sleep 301')
    assert.equal(await reap('r1-b-builder-i1', '--park'), {
      code: 1,
      stdout: '',
      stderr: `svc: refused: 2 processes have their working directory inside ${dir}: ${a} (${cmd(a)}), ${b} (${cmd(b)})\n`,
    })
    assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before)
  } finally {
    for (const c of strays) c.kill('SIGKILL')
  }
  await until(() => strays.every((c) => !alive(c.pid!)), 'the strays gone')
  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
})

test('a builder directory that is no longer a git worktree is refused before the lane is stopped, and nothing changes', async () => {
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built b') + w.gate('never')])
  await w.h.ok(['lane', 'wait', 'r1-b-builder-i1'])
  const dir = join(w.lanes, 'r1-b')
  const harness = await w.harnessPid('r1-b-builder-i1')
  renameSync(join(dir, '.git'), join(dir, 'was.git'))
  const files = filesOf(dir)
  const worktrees = git(w.checkout, 'worktree', 'list', '--porcelain')
  assert.equal(await reap('r1-b-builder-i1', '--park'), { code: 1, stdout: '', stderr: `svc: refused: ${dir} is no longer a git worktree; look at it, then remove it yourself\n` })
  assert.ok(alive(harness), 'the live lane was not stopped for a reap that had to be refused')
  assert.equal([filesOf(dir), git(w.checkout, 'worktree', 'list', '--porcelain')], [files, worktrees])
  assert.equal([(await w.conv('2')).archived, parkedFiles('r1-b-builder-i1')], [false, []])
  renameSync(join(dir, 'was.git'), join(dir, '.git'))
  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
})

test('a dirty worktree is refused without --park, and nothing changes', async () => {
  await doneBuilder('b', DIRTY)
  const dir = join(w.lanes, 'r1-b')
  const before = await capture('r1-b-builder-i1', dir, 'r1/b')
  assert.equal(await reap('r1-b-builder-i1'), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: ${dir} has uncommitted changes (5 paths); commit them, or pass --park to save them to a patch\n`,
  })
  assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before)
  assert.equal(await reap('r1-b-builder-i1', '--keep'), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: ${dir} has uncommitted changes (5 paths); commit them, or pass --park to save them to a patch\n`,
  })
  assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before)
})

test('--park: the work goes to parked-<timestamp>.patch, verified, kept at refs/svc/parked/...; then the tree is cleaned, the worktree removed, the branch kept; the patch reproduces the tree exactly', async () => {
  await doneBuilder('b', DIRTY)
  const dir = join(w.lanes, 'r1-b')
  const files = filesOf(dir, false)
  const tree = await worktreeTree(dir)
  const head = git(dir, 'rev-parse', 'HEAD')
  const name = 'r1-b-builder-i1'
  const r = await reap(name, '--park')
  const m = /^parked 5 paths to (\S+) \(kept at (\S+)\)\n/.exec(r.stdout)
  assert.ok(m, r.stdout + r.stderr)
  const [, patch, ref] = m!
  const ts = /^parked-(\d{8}T\d{9}Z)\.patch$/.exec(patch.slice(w.convDir(name).length + 1))?.[1]
  assert.ok(ts && patch.startsWith(w.convDir(name) + '/'), patch)
  assert.is(ref, `refs/svc/parked/${name}/${ts}`)
  assert.equal(r, { code: 0, stdout: `parked 5 paths to ${patch} (kept at ${ref})\n` + reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })

  assert.not.ok(existsSync(dir), 'the worktree is removed')
  assert.not.ok(git(w.checkout, 'worktree', 'list', '--porcelain').includes(dir))
  assert.is(git(w.checkout, 'rev-parse', 'refs/heads/r1/b'), head, 'the branch is kept')
  assert.is(git(w.checkout, 'rev-parse', `${ref}^{tree}`), tree, 'the kept ref holds the tree')
  assert.is(git(w.checkout, 'rev-parse', `${ref}^`), head)
  assert.equal(parkedFiles(name), [`parked-${ts}.patch`])
  assert.ok(existsSync(join(w.convDir(name), 'lane-brief.md')) && existsSync(join(w.convDir(name), 'reports.json')), 'brief and reports survive')
  assert.is((await w.conv('2')).archived, true)

  // Applying the patch to the branch head gives back every byte, mode and name.
  const scratch = join(w.h.home, 'scratch')
  git(w.checkout, 'worktree', 'add', '--quiet', '--detach', scratch, 'r1/b')
  git(scratch, 'apply', '--binary', '--whitespace=nowarn', patch)
  assert.is(await worktreeTree(scratch), tree)
  assert.equal(filesOf(scratch, false), files)
})

test('--park in a sparse checkout: only the real changes are parked; files outside the sparse patterns are not taken for deleted', async () => {
  const roles = Object.fromEntries(['builder', 'critic', 'verifier', 'play', 'orchestrator'].map((r) => [r, { model: `model-${r}`, harness: 'shell' }]))
  writeProjectsYaml(w.h.service, w.s.project, { gauntlet: { sparse_checkout: ['/src/'], roles } })
  await w.start(['--key', 's', '--role', 'builder', '--prompt', "echo more >> src/app.sh; mkdir -p src/new; printf 'n\\n' > 'src/new/n w.txt'"])
  await stopped('r1-s-builder-i1')
  const dir = join(w.lanes, 'r1-s')
  assert.not.ok(existsSync(join(dir, 'README.md')), 'a sparse worktree')
  const tree = await worktreeTree(dir)
  const r = await reap('r1-s-builder-i1', '--park')
  assert.is(r.code, 0, r.stderr)
  const patch = /^parked 2 paths to (\S+) /.exec(r.stdout)![1]
  assert.not.ok(readFileSync(patch, 'utf8').includes('README.md'), 'README.md is not in the patch')
  const index = join(w.h.home, 'idx')
  const e = { ...gitEnv, GIT_INDEX_FILE: index }
  execFileSync('git', ['read-tree', 'r1/s'], { cwd: w.checkout, env: e })
  execFileSync('git', ['apply', '--cached', patch], { cwd: w.checkout, env: e })
  assert.is(execFileSync('git', ['write-tree'], { cwd: w.checkout, env: e, encoding: 'utf8' }).trim(), tree)
  assert.match(execFileSync('git', ['ls-files'], { cwd: w.checkout, env: e, encoding: 'utf8' }), 'README.md')
})

test('--park refuses work a patch cannot carry (a git repository inside the worktree) before anything changes', async () => {
  const inner = "git init -q inner; cd inner; echo n > n; git add n; git commit -qm n; cd ..; echo more >> README.md"
  await doneBuilder('b', inner)
  const dir = join(w.lanes, 'r1-b')
  const before = await capture('r1-b-builder-i1', dir, 'r1/b')
  assert.equal(await reap('r1-b-builder-i1', '--park'), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: a patch cannot carry the files of a git repository inside the worktree: inner; move it out of ${dir} first\n`,
  })
  assert.equal(await capture('r1-b-builder-i1', dir, 'r1/b'), before)
})

test('commits absent from the upstream: a warning on stderr, the branch kept; a detached HEAD\'s own commits are kept at a ref', async () => {
  const script = 'echo a > a.txt; git add a.txt; git commit -qm a; git push -q -u origin HEAD 2>/dev/null\necho b > b.txt; git add b.txt; git commit -qm b'
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await stopped('r1-b-builder-i1')
  const dir = join(w.lanes, 'r1-b')
  const head = git(dir, 'rev-parse', 'HEAD')
  assert.equal(await reap('r1-b-builder-i1'), {
    code: 0,
    stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'),
    stderr: 'warning: r1/b has 1 commit not on any remote; the branch is kept\n',
  })
  assert.is(git(w.checkout, 'rev-parse', 'refs/heads/r1/b'), head)

  await w.start(['--key', 'v', '--role', 'verifier', '--prompt', 'echo v > v.txt; git add v.txt; git commit -qm v1; echo w > w.txt; git add w.txt; git commit -qm v2'])
  await stopped('r1-v-verifier-i1')
  const vdir = join(w.lanes, 'r1-v-verify-i1')
  const vhead = git(vdir, 'rev-parse', 'HEAD')
  assert.equal(await reap('r1-v-verifier-i1'), {
    code: 0,
    stdout: reapedLine('r1', 'v', 'verifier', '3', vdir),
    stderr: 'warning: the detached HEAD has 2 commits no branch holds; kept at refs/svc/kept/r1-v-verifier-i1\n',
  })
  assert.is(git(w.checkout, 'rev-parse', 'refs/svc/kept/r1-v-verifier-i1'), vhead)
})

test('a play directory is removed; one that holds a .git anywhere inside is kept, with a warning', async () => {
  const p = await w.start(['--key', 'p', '--role', 'play', '--prompt', 'echo hi > notes.txt'])
  await stopped('r1-p-play-i1')
  const pdir = join(w.lanes, 'r1-p-play-i1')
  assert.equal(await reap('r1-p-play-i1'), { code: 0, stdout: reapedLine('r1', 'p', 'play', p, pdir), stderr: '' })
  assert.not.ok(existsSync(pdir))

  const q = await w.start(['--key', 'q', '--role', 'play', '--prompt', 'mkdir sub; git init -q sub/repo; echo x > sub/repo/x'])
  await stopped('r1-q-play-i1')
  const qdir = join(w.lanes, 'r1-q-play-i1')
  const files = filesOf(qdir)
  assert.equal(await reap('r1-q-play-i1'), { code: 0, stdout: reapedLine('r1', 'q', 'play', q), stderr: `warning: ${qdir} holds a .git (sub/repo/.git); the play directory is kept\n` })
  assert.equal(filesOf(qdir), files)
  assert.ok(existsSync(join(qdir, 'sub/repo/.git/HEAD')))
  assert.is((await w.conv(q)).archived, true)

  const t = await w.start(['--key', 't', '--role', 'play', '--prompt', 'git init -q .'])
  await stopped('r1-t-play-i1')
  const tdir = join(w.lanes, 'r1-t-play-i1')
  assert.equal(await reap('r1-t-play-i1'), { code: 0, stdout: reapedLine('r1', 't', 'play', t), stderr: `warning: ${tdir} holds a .git; the play directory is kept\n` })
  assert.ok(existsSync(join(tdir, '.git')))
})

test('--keep: the ended conversation stays listed, not archived; a later reap archives it', async () => {
  await doneBuilder('b')
  const dir = join(w.lanes, 'r1-b')
  assert.equal(await reap('r1-b-builder-i1', '--keep'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b'), stderr: '' })
  assert.not.ok(existsSync(dir))
  const conv = await w.conv('2')
  assert.equal([conv.archived, conv.activity], [false, 'stopped'])
  assert.ok((JSON.parse(await w.h.ok(['conv', 'list', '--json'])) as any[]).some((c) => c.id === '2'), 'still in the conversation list')
  assert.match(await w.h.ok(['lane', 'list']), /\n2 +r1\/b +builder +i1 +stopped +done /)
  assert.equal(await reap('r1-b-builder-i1'), { code: 0, stdout: reapedLine('r1', 'b', 'builder', '2', undefined, 'r1/b'), stderr: `warning: ${dir} was already gone\n` })
  assert.is((await w.conv('2')).archived, true)
})

test("issue 16 item 2: a reap never touches another lane's directory: col-a/b reaped with --keep, col/a-b given the same path works there, and reaping col-a/b again leaves that work alone", async () => {
  const none = ['--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait']
  const a = await w.start(['--key', 'b', ...none], 'col-a')
  const dir = join(w.lanes, 'col-a-b')
  const launchB = () => w.h.svc(['lane', 'start', '--run', 'col', '--key', 'a-b', ...none], { env: { SERVICE_CONVERSATION: w.s.root } })
  assert.equal(await launchB(), {
    code: 1,
    stdout: '',
    stderr: `svc: refused: ${dir} is the directory of lane col-a/b builder i1 (conv ${a}), which is not reaped; reap it first (svc lane reap ${a})\n`,
  })
  assert.equal(await reap(a, '--keep'), { code: 0, stdout: reapedLine('col-a', 'b', 'builder', a, dir, 'col-a/b'), stderr: '' })
  const launched = await launchB()
  assert.is(launched.code, 0, launched.stderr)
  const b = /: conv (\d+) \(/.exec(launched.stdout)![1]
  assert.is(branchOf(dir), 'col/a-b', "the path is col/a-b's worktree now")
  writeFileSync(join(dir, 'work-of-b.txt'), 'the work of b\n')
  appendFileSync(join(dir, 'README.md'), 'edited by b\n')
  const before = { files: filesOf(dir), status: git(dir, 'status', '--porcelain'), head: git(dir, 'rev-parse', 'HEAD') }

  assert.equal(await reap(a, '--park'), {
    code: 0,
    stdout: reapedLine('col-a', 'b', 'builder', a, undefined, 'col-a/b'),
    stderr: `warning: ${dir} was removed by an earlier reap; what is there now is not this lane's and was left alone\n`,
  })
  assert.equal({ files: filesOf(dir), status: git(dir, 'status', '--porcelain'), head: git(dir, 'rev-parse', 'HEAD') }, before, "b's work is where it was")
  assert.equal(parkedFiles('col-a-b-builder-i1'), [], 'nothing parked under col-a/b')
  assert.is(svcRefs(), '')
  assert.equal([(await w.conv(a)).archived, (await w.conv(b)).archived], [true, false])
  assert.is(JSON.parse(await w.h.ok(['lane', 'list', '--json'])).find((l: any) => l.id === a).git, undefined, "col-a/b shows no git facts of col/a-b's worktree")
  // col/a-b's own reap parks its own work.
  const own = await reap(b, '--park')
  assert.is(own.code, 0, own.stderr)
  assert.is((await w.conv(b)).name, 'col-a-b-builder-i1-2')
  assert.equal([parkedFiles('col-a-b-builder-i1').length, parkedFiles('col-a-b-builder-i1-2').length], [0, 1])
})

test('issue 16 item 2: a directory removed and made again by hand at a lane\'s path (worktree or play) is refused by the reap on one line; nothing touched, nothing archived', async () => {
  const b = await w.start(['--key', 'b', '--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait'])
  const p = await w.start(['--key', 'p', '--role', 'play', '--harness', 'none', '--prompt', 'x', '--no-wait'])
  const bdir = join(w.lanes, 'r1-b')
  const pdir = join(w.lanes, 'r1-p-play-i1')
  git(w.checkout, 'worktree', 'remove', '--force', bdir)
  git(w.checkout, 'worktree', 'add', '--detach', bdir, 'HEAD')
  writeFileSync(join(bdir, 'mine.txt'), 'made by hand\n')
  rmSync(pdir, { recursive: true })
  mkdirSync(pdir)
  writeFileSync(join(pdir, 'mine.txt'), 'made by hand\n')
  for (const [id, dir] of [[b, bdir], [p, pdir]]) {
    const files = filesOf(dir)
    assert.equal(await reap(id, '--park'), {
      code: 1,
      stdout: '',
      stderr: `svc: refused: ${dir} is not the directory this lane was launched in (it was removed and made again since); nothing was touched\n`,
    })
    assert.equal(filesOf(dir), files)
    assert.is((await w.conv(id)).archived, false)
  }
  assert.is(git(bdir, 'status', '--porcelain'), '?? mine.txt')
})

test('archiving fails: the reap still succeeds and says how to archive from the Command Deck', async () => {
  await doneBuilder('b')
  const dir = join(w.lanes, 'r1-b')
  const k = await restartKernel({ SERVICE_FAULT_ARCHIVE: '1' })
  const r = await reap('r1-b-builder-i1')
  assert.ok(w.h.kernelFile()!.pid !== k.pid)
  assert.equal(r, {
    code: 0,
    stdout: reapedLine('r1', 'b', 'builder', '2', dir, 'r1/b') + 'reaped, but archiving failed: injected archive failure; archive conv 2 from the Command Deck\n',
    stderr: '',
  })
  assert.not.ok(existsSync(dir))
  assert.is((await w.conv('2')).archived, false)
  assert.is((await w.h.svc(['conv', 'archive', '2'])).code, 0)
  assert.is((await w.conv('2')).archived, true)
})

test.run()
