import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git, until } from '../helpers/home.js'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { World, alive } from './lane-views-kit.js'
import { reapKit, reapedLine } from './reap-kit.js'

// Issue 16, "Never lose a byte": work `git status` does not show, bytes it normalises, and what stands in a reap's
// way (an index lock, a process holding a file open). Each test is named after its item.

// One home and kernel for the suite (its start is most of what a test here would cost); each test has a run of its
// own. What a test commits to the project (attributes, ignore rules) stays for the tests after it, which are written
// so that it changes nothing of theirs.
let w: World
let runs = 0
test.before(async () => {
  w = await new World('reap-unseen').begin()
})
test.before.each(() => {
  w.run = `r${++runs}`
  NAME = `${w.run}-b-builder-i1`
})
test.after(async () => {
  await w.stop()
})

const { reap, stopped, capture, doneBuilder, applied } = reapKit(() => w)
let NAME = ''
const parkedLine = (stdout: string) => /^parked (\d+) paths? to (\S+) \(kept at (\S+)\)\n/.exec(stdout)
const file = (bytes: string, mode = '644') => `file ${mode} ${Buffer.from(bytes).toString('base64')}`

/** Commit files to the project and push them, so lanes launched after start from them. */
function commitToProject(files: Record<string, string>) {
  for (const [p, c] of Object.entries(files)) writeFileSync(join(w.checkout, p), c)
  git(w.checkout, 'add', '-A')
  git(w.checkout, 'commit', '-qm', 'project files')
  git(w.checkout, 'push', '-q', 'origin', 'HEAD')
}

/** A done builder that then runs `after`, leaving work `git status` does not show (`unseen`): a plain reap is
 * refused, naming that work, and changes nothing. Returns the lane's directory. */
async function refusedUnseen(after: string, unseen: string[], status = ''): Promise<string> {
  await doneBuilder('b', after)
  const dir = join(w.lanes, `${w.run}-b`)
  assert.is(git(dir, 'status', '--porcelain'), status, 'git status shows no more than this')
  const before = await capture(NAME, dir, `${w.run}/b`)
  const n = unseen.length + (status ? status.split('\n').length : 0)
  assert.equal(await reap(NAME), {
    code: 1,
    stdout: '',
    stderr:
      `svc: refused: ${dir} has uncommitted changes (${n} paths, ${unseen.length} of them hidden from git ` +
      `status: ${unseen.slice(0, 3).join(', ')}${unseen.length > 3 ? ` and ${unseen.length - 3} more` : ''}); ` +
      `commit them, or pass --park to save them to a patch\n`,
  })
  assert.equal(await capture(NAME, dir, `${w.run}/b`), before, 'a refused reap changes nothing')
  return dir
}

test('edits behind assume-unchanged and skip-worktree are uncommitted work: a plain reap is refused, --park saves them', async () => {
  const flags =
    'echo edit >> README.md; git update-index --assume-unchanged README.md; echo more >> src/app.sh; git ' +
    'update-index --skip-worktree src/app.sh'
  const dir = await refusedUnseen(flags, ['README.md', 'src/app.sh'])
  const id = (await w.conv(NAME)).id

  const r = await reap(NAME, '--park')
  const m = parkedLine(r.stdout)
  assert.ok(m, r.stdout + r.stderr)
  assert.equal(r, { code: 0, stdout: m![0] + reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`), stderr: '' })
  assert.is(m![1], '2')
  const back = applied(m![2], `${w.run}/b`, 'flags')
  assert.is(back['README.md'], file('# sample\nedit\n'))
  assert.is(back['src/app.sh'], file('echo app\nmore\n'))
})

test('--park in a sparse lane saves a new file outside the sparse patterns', async () => {
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
    'b',
    '--role',
    'builder',
    '--prompt',
    "printf 'outside\\n' > outside.txt; mkdir -p docs; printf 'doc\\n' > docs/new.md; echo more >> src/app.sh",
  ])
  await stopped(NAME)
  const dir = join(w.lanes, `${w.run}-b`)
  assert.not.ok(existsSync(join(dir, 'README.md')), 'a sparse worktree')
  const r = await reap(NAME, '--park')
  const m = parkedLine(r.stdout)
  assert.ok(m && r.code === 0, r.stdout + r.stderr)
  assert.is(m![1], '3')
  assert.not.ok(existsSync(dir))
  const back = applied(m![2], `${w.run}/b`, 'sparse')
  assert.equal(
    [back['outside.txt'], back['docs/new.md'], back['src/app.sh'], back['README.md']],
    [file('outside\n'), file('doc\n'), file('echo app\nmore\n'), file('# sample\n')],
  )
}

test('--park keeps the CRLF of an untracked file under text=auto: the patch and the kept ref give back the exact bytes', async () => {
  commitToProject({ '.gitattributes': '* text=auto\n' })
  await doneBuilder('b', "printf 'one\\r\\ntwo\\r\\n' > crlf.txt; printf 'x\\r\\ny\\n' >> README.md")
  const dir = join(w.lanes, `${w.run}-b`)
  const r = await reap(NAME, '--park')
  const m = parkedLine(r.stdout)
  assert.ok(m && r.code === 0, r.stdout + r.stderr)
  assert.ok(readFileSync(m![2]).includes(Buffer.from('+one\r\n+two\r\n')), 'the patch holds the CR bytes')
  assert.is(git(w.checkout, 'cat-file', 'blob', `${m![3]}:crlf.txt`), 'one\r\ntwo', 'the kept tree holds them too')
  const back = applied(m![2], `${w.run}/b`, 'crlf')
  assert.is(back['crlf.txt'], file('one\r\ntwo\r\n'))
  assert.is(back['README.md'], file('# sample\nx\r\ny\n'))
  assert.not.ok(existsSync(dir))
})

test('a leftover index.lock refuses --park before anything is parked, naming the lock; once it is gone the park completes', async () => {
  await doneBuilder('b', 'echo edit >> README.md; touch "$(git rev-parse --git-dir)/index.lock"')
  const dir = join(w.lanes, `${w.run}-b`)
  const lock = join(git(dir, 'rev-parse', '--absolute-git-dir'), 'index.lock')
  const before = await capture(NAME, dir, `${w.run}/b`)
  assert.equal(await reap(NAME, '--park'), {
    code: 1,
    stdout: '',
    stderr:
      `svc: refused: ${lock} exists, so git cannot change the worktree; if no git command is running in ${dir}` +
      `, remove that file and reap again\n`,
  })
  assert.equal(await capture(NAME, dir, `${w.run}/b`), before, 'no patch written, no ref made, nothing changed')
  unlinkSync(lock)
  const r = await reap(NAME, '--park')
  assert.ok(parkedLine(r.stdout) && r.code === 0, r.stdout + r.stderr)
})

test('a process holding a file open inside the lane (its working directory elsewhere) refuses the reap, process and file listed', async () => {
  await doneBuilder('b')
  const dir = join(w.lanes, `${w.run}-b`)
  const log = join(dir, 'log.txt')
  // One process, no children: a shell loop's `sleep` would hold the file too.
  const script =
    "const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'a'); let i = 0; setInterval(() => " +
    'fs.writeSync(fd, `line ${++i}\\n`), 10)'
  let writer: ChildProcess | undefined
  try {
    writer = spawn(process.execPath, ['-e', script, log], { cwd: w.h.home, stdio: 'ignore' })
    await until(() => existsSync(log) && readFileSync(log, 'utf8').length > 0, 'the writer started')
    const cmd = readFileSync(`/proc/${writer.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
    const refusal = `svc: refused: a process holds files open inside ${dir}: ${writer.pid} (${cmd}) holding ${log}\n`
    for (const args of [[NAME, '--park'], [NAME]]) {
      const before = await capture(NAME, dir, `${w.run}/b`)
      assert.equal(await reap(...args), { code: 1, stdout: '', stderr: refusal })
      assert.ok(alive(writer.pid!), 'a reap never kills a process')
      assert.equal(
        { ...(await capture(NAME, dir, `${w.run}/b`)), files: undefined, status: undefined },
        { ...before, files: undefined, status: undefined },
      )
    }
  } finally {
    writer?.kill('SIGKILL')
  }
  await until(() => !alive(writer!.pid!), 'the writer gone')
  const written = readFileSync(log)
  const r = await reap(NAME, '--park')
  const m = parkedLine(r.stdout)
  assert.ok(m && r.code === 0, r.stdout + r.stderr)
  assert.is(
    applied(m![2], `${w.run}/b`, 'open')['log.txt'],
    `file 644 ${written.toString('base64')}`,
    'every line the writer wrote is in the patch',
  )
})

test("files hidden by the lane's own ignore rules are work; files the branch's rules ignore stay out, named with their size", async () => {
  commitToProject({ '.gitignore': 'node_modules/\n' })
  const hide = [
    'mkdir -p node_modules/dep; head -c 3000 /dev/zero > node_modules/dep/big.js',
    "mkdir notes; echo secret > notes/todo.txt; printf '*\\n' > notes/.gitignore",
    // A rule file that does not hide itself: once the park cleans it away, what it hid must not stop the removal.
    "mkdir drafts; echo plan > drafts/plan.txt; printf '*\\n!.gitignore\\n' > drafts/.gitignore",
    // A rule the lane committed is its own too.
    "printf 'cache/\\n' >> .gitignore; git commit -qam 'ignore cache'; mkdir cache; echo c > cache/result.txt",
    'echo private > scratch.txt; echo scratch.txt >> "$(git rev-parse --git-common-dir)/info/exclude"',
  ].join('\n')
  const dir = await refusedUnseen(
    hide,
    ['cache/result.txt', 'drafts/plan.txt', 'notes/.gitignore', 'notes/todo.txt', 'scratch.txt'],
    '?? drafts/',
  )
  const id = (await w.conv(NAME)).id

  const r = await reap(NAME, '--park')
  const m = parkedLine(r.stdout)
  assert.ok(m, r.stdout + r.stderr)
  assert.equal(r, {
    code: 0,
    stdout: m![0] + reapedLine(w.run, 'b', 'builder', id, dir, `${w.run}/b`),
    stderr:
      "note: left out 1 path the branch's ignore rules hide, 3.0 kB in all: node_modules/ (3.0 kB)\nwarning: " +
      `${w.run}/b has 1 commit not on any remote; the branch is kept\n`,
  })
  const back = applied(m![2], `${w.run}/b`, 'hidden')
  assert.equal(
    [
      back['notes/todo.txt'],
      back['notes/.gitignore'],
      back['scratch.txt'],
      back['drafts/plan.txt'],
      back['drafts/.gitignore'],
      back['cache/result.txt'],
    ],
    [file('secret\n'), file('*\n'), file('private\n'), file('plan\n'), file('*\n!.gitignore\n'), file('c\n')],
  )
  assert.not.ok(readFileSync(m![2], 'utf8').includes('node_modules'), 'what the branch ignores is not parked')
})

test.run()
