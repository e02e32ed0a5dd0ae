import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git } from '../helpers/home.js'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { World, filesOf, gitEnv, worktreeTree } from './lane-views-kit.js'
import { reapKit, reapedLine } from './reap-kit.js'
import { branchOf } from './lane-start-kit.js'

// `svc lane reap` of SPEC.md 4.1, what it keeps: uncommitted work refused without --park and parked with it (sparse
// lanes, work a patch cannot carry), commits absent from the upstream, play directories, --keep, and a path that
// another lane took after an earlier reap. The stop and the refusals of the directory are in lane-reap.

// One home and kernel for the suite (its start is most of what a test here would cost); each test has a run of its
// own.
let w: World
let runs = 0
test.before(async () => {
  w = await new World('reap').begin()
})
test.before.each(() => {
  w.run = `r${++runs}`
})
test.after(async () => {
  await w.stop()
})

const { reap, stopped, parkedFiles, svcRefs, capture, doneBuilder } = reapKit(() => w)

/** Uncommitted work of every kind: modified, deleted, binary, mode-changed, untracked in a new folder with a
 * non-ASCII name and a space. */
const DIRTY = [
  'echo changed >> README.md',
  'rm src/app.sh',
  "printf '\\000\\001\\377binary' > blob.bin",
  'chmod +x work.txt',
  "mkdir -p 'new dir/ü'; printf 'untracked\\n' > 'new dir/ü/naïve file.txt'",
].join('\n')

test('a dirty worktree is refused without --park, and nothing changes', async () => {
  await doneBuilder('b', DIRTY)
  const dir = join(w.lanes, `${w.run}-b`)
  const before = await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`)
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 1,
    stdout: '',
    stderr:
      `svc: refused: ${dir} has uncommitted changes (5 paths); commit them, or pass --park to save them to a ` +
      `patch\n`,
  })
  assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before)
  assert.equal(await reap(`${w.run}-b-builder-i1`, '--keep'), {
    code: 1,
    stdout: '',
    stderr:
      `svc: refused: ${dir} has uncommitted changes (5 paths); commit them, or pass --park to save them to a ` +
      `patch\n`,
  })
  assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before)
})

test('--park: the work goes to parked-<timestamp>.patch, verified, kept at refs/svc/parked/...; then the tree is cleaned, the worktree removed, the branch kept; the patch reproduces the tree exactly', async () => {
  const id = await doneBuilder('b', DIRTY)
  const dir = join(w.lanes, `${w.run}-b`)
  const files = filesOf(dir, false)
  const tree = await worktreeTree(dir)
  const head = git(dir, 'rev-parse', 'HEAD')
  const name = `${w.run}-b-builder-i1`
  const r = await reap(name, '--park')
  const m = /^parked 5 paths to (\S+) \(kept at (\S+)\)\n/.exec(r.stdout)
  assert.ok(m, r.stdout + r.stderr)
  const [, patch, ref] = m!
  const ts = /^parked-(\d{8}T\d{9}Z)\.patch$/.exec(patch.slice(w.convDir(name).length + 1))?.[1]
  assert.ok(ts && patch.startsWith(w.convDir(name) + '/'), patch)
  assert.is(ref, `refs/svc/parked/${name}/${ts}`)
  assert.equal(r, {
    code: 0,
    stdout: `parked 5 paths to ${patch} (kept at ${ref})\n` + reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })

  assert.not.ok(existsSync(dir), 'the worktree is removed')
  assert.not.ok(git(w.checkout, 'worktree', 'list', '--porcelain').includes(dir))
  assert.is(git(w.checkout, 'rev-parse', `refs/heads/${w.run}/b`), head, 'the branch is kept')
  assert.is(git(w.checkout, 'rev-parse', `${ref}^{tree}`), tree, 'the kept ref holds the tree')
  assert.is(git(w.checkout, 'rev-parse', `${ref}^`), head)
  assert.equal(parkedFiles(name), [`parked-${ts}.patch`])
  assert.ok(
    existsSync(join(w.convDir(name), 'lane-brief.md')) && existsSync(join(w.convDir(name), 'reports.json')),
    'brief and reports survive',
  )
  assert.is((await w.conv(id)).archived, true)

  // Applying the patch to the branch head gives back every byte, mode and name.
  const scratch = join(w.h.home, 'scratch')
  git(w.checkout, 'worktree', 'add', '--quiet', '--detach', scratch, `${w.run}/b`)
  git(scratch, 'apply', '--binary', '--whitespace=nowarn', patch)
  assert.is(await worktreeTree(scratch), tree)
  assert.equal(filesOf(scratch, false), files)
})

test('--park in a sparse checkout: only the real changes are parked; files outside the sparse patterns are not taken for deleted', async () => {
  const roles = Object.fromEntries(
    ['builder', 'critic', 'verifier', 'play', 'orchestrator'].map((r) => [
      r,
      { model: `model-${r}`, harness: 'shell' },
    ]),
  )
  // Sparse for this test only: the suite's later tests launch in full checkouts again.
  writeProjectsYaml(w.h.service, w.s.project, { gauntlet: { sparse_checkout: ['/src/'], roles } })
  try {
    await sparseParked()
  } finally {
    writeProjectsYaml(w.h.service, w.s.project, { gauntlet: { roles } })
  }
})

async function sparseParked() {
  await w.start([
    '--key',
    's',
    '--role',
    'builder',
    '--prompt',
    "echo more >> src/app.sh; mkdir -p src/new; printf 'n\\n' > 'src/new/n w.txt'",
  ])
  await stopped(`${w.run}-s-builder-i1`)
  const dir = join(w.lanes, `${w.run}-s`)
  assert.not.ok(existsSync(join(dir, 'README.md')), 'a sparse worktree')
  const tree = await worktreeTree(dir)
  const r = await reap(`${w.run}-s-builder-i1`, '--park')
  assert.is(r.code, 0, r.stderr)
  const patch = /^parked 2 paths to (\S+) /.exec(r.stdout)![1]
  assert.not.ok(readFileSync(patch, 'utf8').includes('README.md'), 'README.md is not in the patch')
  const index = join(w.h.home, 'idx')
  const e = { ...gitEnv, GIT_INDEX_FILE: index }
  execFileSync('git', ['read-tree', `${w.run}/s`], { cwd: w.checkout, env: e })
  execFileSync('git', ['apply', '--cached', patch], { cwd: w.checkout, env: e })
  assert.is(execFileSync('git', ['write-tree'], { cwd: w.checkout, env: e, encoding: 'utf8' }).trim(), tree)
  assert.match(execFileSync('git', ['ls-files'], { cwd: w.checkout, env: e, encoding: 'utf8' }), 'README.md')
}

test('--park refuses work a patch cannot carry (a git repository inside the worktree) before anything changes', async () => {
  const inner = 'git init -q inner; cd inner; echo n > n; git add n; git commit -qm n; cd ..; echo more >> README.md'
  await doneBuilder('b', inner)
  const dir = join(w.lanes, `${w.run}-b`)
  const before = await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`)
  assert.equal(await reap(`${w.run}-b-builder-i1`, '--park'), {
    code: 1,
    stdout: '',
    stderr:
      `svc: refused: a patch cannot carry the files of a git repository inside the worktree: inner; move it ` +
      `out of ${dir} first\n`,
  })
  assert.equal(await capture(`${w.run}-b-builder-i1`, dir, `${w.run}/b`), before)
})

test("commits absent from the upstream: a warning on stderr, the branch kept; a detached HEAD's own commits are kept at a ref", async () => {
  const script =
    'echo a > a.txt; git add a.txt; git commit -qm a; git push -q -u origin HEAD 2>/dev/null\necho b > b.txt; git ' +
    'add b.txt; git commit -qm b'
  const id = await w.start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await stopped(`${w.run}-b-builder-i1`)
  const dir = join(w.lanes, `${w.run}-b`)
  const head = git(dir, 'rev-parse', 'HEAD')
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: `warning: ${w.run}/b has 1 commit not on any remote; the branch is kept\n`,
  })
  assert.is(git(w.checkout, 'rev-parse', `refs/heads/${w.run}/b`), head)

  const v = await w.start([
    '--key',
    'v',
    '--role',
    'verifier',
    '--prompt',
    'echo v > v.txt; git add v.txt; git commit -qm v1; echo w > w.txt; git add w.txt; git commit -qm v2',
  ])
  await stopped(`${w.run}-v-verifier-i1`)
  const vdir = join(w.lanes, `${w.run}-v-verify-i1`)
  const vhead = git(vdir, 'rev-parse', 'HEAD')
  assert.equal(await reap(`${w.run}-v-verifier-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'v', 'verifier', v, vdir),
    stderr: `warning: the detached HEAD has 2 commits no branch holds; kept at refs/svc/kept/${w.run}-v-verifier-i1\n`,
  })
  assert.is(git(w.checkout, 'rev-parse', `refs/svc/kept/${w.run}-v-verifier-i1`), vhead)
})

test('a play directory is removed; one that holds a .git anywhere inside is kept, with a warning', async () => {
  const p = await w.start(['--key', 'p', '--role', 'play', '--prompt', 'echo hi > notes.txt'])
  await stopped(`${w.run}-p-play-i1`)
  const pdir = join(w.lanes, `${w.run}-p-play-i1`)
  assert.equal(await reap(`${w.run}-p-play-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'p', 'play', p, pdir),
    stderr: '',
  })
  assert.not.ok(existsSync(pdir))

  const q = await w.start([
    '--key',
    'q',
    '--role',
    'play',
    '--prompt',
    'mkdir sub; git init -q sub/repo; echo x > sub/repo/x',
  ])
  await stopped(`${w.run}-q-play-i1`)
  const qdir = join(w.lanes, `${w.run}-q-play-i1`)
  const files = filesOf(qdir)
  assert.equal(await reap(`${w.run}-q-play-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'q', 'play', q),
    stderr: `warning: ${qdir} holds a .git (sub/repo/.git); the play directory is kept\n`,
  })
  assert.equal(filesOf(qdir), files)
  assert.ok(existsSync(join(qdir, 'sub/repo/.git/HEAD')))
  assert.is((await w.conv(q)).archived, true)

  const t = await w.start(['--key', 't', '--role', 'play', '--prompt', 'git init -q .'])
  await stopped(`${w.run}-t-play-i1`)
  const tdir = join(w.lanes, `${w.run}-t-play-i1`)
  assert.equal(await reap(`${w.run}-t-play-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 't', 'play', t),
    stderr: `warning: ${tdir} holds a .git; the play directory is kept\n`,
  })
  assert.ok(existsSync(join(tdir, '.git')))
})

test('--keep: the ended conversation stays listed, not archived; a later reap archives it', async () => {
  const id = await doneBuilder('b')
  const dir = join(w.lanes, `${w.run}-b`)
  assert.equal(await reap(`${w.run}-b-builder-i1`, '--keep'), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr: '',
  })
  assert.not.ok(existsSync(dir))
  const conv = await w.conv(id)
  assert.equal([conv.archived, conv.activity], [false, 'stopped'])
  assert.ok(
    (JSON.parse(await w.h.ok(['conv', 'list', '--json'])) as any[]).some((c) => c.id === id),
    'still in the conversation list',
  )
  assert.match(await w.h.ok(['lane', 'list']), new RegExp(`\n${id} +${w.run}/b +builder +i1 +stopped +done `))
  assert.equal(await reap(`${w.run}-b-builder-i1`), {
    code: 0,
    stdout: reapedLine(w.run, 'b', 'builder', id, undefined, `${w.run}/b`),
    stderr: `warning: ${dir} was already gone\n`,
  })
  assert.is((await w.conv(id)).archived, true)
})

test("a reap never touches another lane's directory: col-a/b reaped with --keep, col/a-b given the same path works there, and reaping col-a/b again leaves that work alone", async () => {
  const none = ['--role', 'builder', '--harness', 'none', '--prompt', 'x', '--no-wait']
  const a = await w.start(['--key', 'b', ...none], 'col-a')
  const dir = join(w.lanes, 'col-a-b')
  const launchB = () =>
    w.h.svc(['lane', 'start', '--run', 'col', '--key', 'a-b', ...none], { env: { SERVICE_CONVERSATION: w.s.root } })
  assert.equal(await launchB(), {
    code: 1,
    stdout: '',
    stderr:
      `svc: refused: ${dir} is the directory of lane col-a/b builder i1 (conv ${a}), which is not reaped; ` +
      `reap it first (svc lane reap ${a})\n`,
  })
  assert.equal(await reap(a, '--keep'), {
    code: 0,
    stdout: reapedLine('col-a', 'b', 'builder', a, dir, 'col-a/b'),
    stderr: '',
  })
  const launched = await launchB()
  assert.is(launched.code, 0, launched.stderr)
  const b = /: conv (\d+) \(/.exec(launched.stdout)![1]
  assert.is(branchOf(dir), 'col/a-b', "the path is col/a-b's worktree now")
  writeFileSync(join(dir, 'work-of-b.txt'), 'the work of b\n')
  appendFileSync(join(dir, 'README.md'), 'edited by b\n')
  const before = { files: filesOf(dir), status: git(dir, 'status', '--porcelain'), head: git(dir, 'rev-parse', 'HEAD') }
  const refs = svcRefs()

  assert.equal(await reap(a, '--park'), {
    code: 0,
    stdout: reapedLine('col-a', 'b', 'builder', a, undefined, 'col-a/b'),
    stderr: `warning: ${dir} was removed by an earlier reap; what is there now is not this lane's and was left alone\n`,
  })
  assert.equal(
    { files: filesOf(dir), status: git(dir, 'status', '--porcelain'), head: git(dir, 'rev-parse', 'HEAD') },
    before,
    "b's work is where it was",
  )
  assert.equal(parkedFiles('col-a-b-builder-i1'), [], 'nothing parked under col-a/b')
  assert.is(svcRefs(), refs, 'no ref made')
  assert.equal([(await w.conv(a)).archived, (await w.conv(b)).archived], [true, false])
  assert.is(
    JSON.parse(await w.h.ok(['lane', 'list', '--json'])).find((l: any) => l.id === a).git,
    undefined,
    "col-a/b shows no git facts of col/a-b's worktree",
  )
  // col/a-b's own reap parks its own work.
  const own = await reap(b, '--park')
  assert.is(own.code, 0, own.stderr)
  assert.is((await w.conv(b)).name, 'col-a-b-builder-i1-2')
  assert.equal([parkedFiles('col-a-b-builder-i1').length, parkedFiles('col-a-b-builder-i1-2').length], [0, 1])
})

test.run()
