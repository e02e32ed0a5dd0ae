import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFiles } from '../../cli/demo/sample-project.js'
import { scratchDir } from '../helpers/home.js'
import { diffBinaryToFile, treeFromPatch } from '../../kernel/io/git-patch.js'
import { snapshotTree } from '../../kernel/io/git-snapshot.js'
import { hiddenFiles, ignoredAtLaunch, unseenWork } from '../../kernel/io/git-unseen.js'

// What git status does not show, read from real repositories: flagged entries, raw bytes, ignore rules at launch.

const BASE = scratchDir('io-git-unseen')
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
}
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: 'pipe' }).replace(/\n$/, '')
let n = 0

function repo(files: Record<string, string>): string {
  const dir = join(BASE, `r${n++}`)
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  writeFiles(dir, files)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'base')
  return dir
}

/** Snapshot, patch file, and the tree the patch gives back. */
async function park(dir: string, launchedAt = Date.now()): Promise<{ tree: string; back: string; patch: Buffer }> {
  const tree = await snapshotTree(dir, launchedAt)
  const path = join(BASE, `p${n++}.patch`)
  await diffBinaryToFile(dir, 'HEAD', tree, path)
  return { tree, back: await treeFromPatch(dir, path), patch: readFileSync(path) }
}

test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('flagged entries are hashed by git, not read by the kernel: a pipe behind a flag is work and never hangs the read', async () => {
  const dir = repo({ 'a.txt': 'a\n', 'big.bin': 'small\n', 'same.txt': 's\n' })
  git(dir, 'update-index', '--assume-unchanged', 'a.txt', 'big.bin', 'same.txt')
  // A pipe nobody writes: read in the kernel, it would wait for ever.
  unlinkSync(join(dir, 'a.txt'))
  execFileSync('mkfifo', [join(dir, 'a.txt')])
  writeFileSync(join(dir, 'big.bin'), Buffer.alloc(8 * 2 ** 20, 1))
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 5000)))
  const got = await Promise.race([unseenWork(dir, Date.now()), late])
  clearTimeout(timer)
  assert.equal(got, { flagged: ['a.txt', 'big.bin'], hidden: [] })
})

test('flagged entries: edits behind assume-unchanged and skip-worktree, and a deleted assume-unchanged file, are in the snapshot', async () => {
  const dir = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'same.txt': 's\n', 'gone.txt': 'g\n' })
  writeFileSync(join(dir, 'a.txt'), 'a edited\n')
  writeFileSync(join(dir, 'b.txt'), 'b edited\n')
  unlinkSync(join(dir, 'gone.txt'))
  git(dir, 'update-index', '--assume-unchanged', 'a.txt', 'same.txt', 'gone.txt')
  git(dir, 'update-index', '--skip-worktree', 'b.txt')
  assert.is(git(dir, 'status', '--porcelain'), '', 'git status shows none of it')
  assert.equal(await unseenWork(dir, Date.now()), { flagged: ['a.txt', 'b.txt', 'gone.txt'], hidden: [] })
  const { tree, back } = await park(dir)
  assert.is(back, tree)
  assert.is(git(dir, 'cat-file', 'blob', `${tree}:a.txt`), 'a edited')
  assert.is(git(dir, 'cat-file', 'blob', `${tree}:b.txt`), 'b edited')
  assert.is(git(dir, 'ls-tree', '--name-only', tree, 'gone.txt'), '')
  assert.is(
    git(dir, 'ls-files', '-v', 'a.txt', 'b.txt'),
    'h a.txt\nS b.txt',
    "the worktree's own index keeps its flags",
  )
})

test('raw bytes: CRLF under text=auto, an eol=crlf file and a filter are parked as the bytes on disk', async () => {
  const dir = repo({ '.gitattributes': '* text=auto\n*.win eol=crlf\n*.up filter=upper\n', 'old.win': 'x\n' })
  git(dir, 'config', 'filter.upper.clean', 'tr a-z A-Z')
  git(dir, 'config', 'core.autocrlf', 'true')
  writeFileSync(join(dir, 'new.txt'), 'one\r\ntwo\r\n')
  writeFileSync(join(dir, 'old.win'), 'x\r\ny\r\n')
  writeFileSync(join(dir, 'f.up'), 'lower\n')
  const { tree, back, patch } = await park(dir)
  assert.is(back, tree, 'the patch gives back the tree of raw blobs: equal trees are equal bytes')
  assert.is(git(dir, 'cat-file', 'blob', `${tree}:new.txt`), 'one\r\ntwo\r')
  assert.is(git(dir, 'cat-file', 'blob', `${tree}:old.win`), 'x\r\ny\r')
  assert.is(git(dir, 'cat-file', 'blob', `${tree}:f.up`), 'lower')
  assert.ok(patch.includes(Buffer.from('+one\r\n+two\r\n')))
})

test('the launch rules flattened from nested .gitignore files hide exactly what git hides with them in place', async () => {
  const dir = repo({
    '.gitignore': '*.log\n!keep.log\nbuild/\n/top-only\n',
    'a/.gitignore': 'x\n/anch\nsub/y\n!b/z.log\n',
    'a/b/.gitignore': '*.tmp\n!important.tmp\ndeep/\n',
    'we*rd/.gitignore': 'q\n',
  })
  const untracked = [
    't.log',
    'keep.log',
    'build/o.js',
    'top-only',
    'a/top-only',
    'a/x',
    'a/b/x',
    'a/anch',
    'a/b/anch',
    'a/sub/y',
    'a/b/sub/y',
    'a/b/z.log',
    'a/c/z.log',
    'a/b/f.tmp',
    'a/b/important.tmp',
    'f.tmp',
    'a/b/deep/d',
    'a/deep/d',
    'we*rd/q',
    'weXrd/q',
    'free.txt',
  ]
  for (const p of untracked) {
    mkdirSync(join(dir, p, '..'), { recursive: true })
    writeFileSync(join(dir, p), p)
  }
  assert.equal(await hiddenFiles(dir, Date.now()), [], 'nothing is hidden by rules written since')
  const byGit = git(dir, 'ls-files', '-z', '--others', '--ignored', '--directory', '--exclude-standard')
    .split('\0')
    .filter(Boolean)
  const atLaunch = await ignoredAtLaunch(dir, Date.now())
  assert.equal(atLaunch.map((p) => p.path).sort(), byGit.sort())
  assert.ok(byGit.includes('a/x') && byGit.includes('build/') && !byGit.includes('keep.log'), byGit.join(' '))
  assert.equal(
    atLaunch.find((p) => p.path === 'build/')?.bytes,
    'build/o.js'.length,
    'a directory counts the bytes under it',
  )
})

test('rules written after the launch hide work: a new nested .gitignore, an edited one, info/exclude newer than the launch', async () => {
  const dir = repo({ 'a/.gitignore': 'x\n', 'a/f': 'f\n' })
  const launchedAt = Date.now() - 60_000
  mkdirSync(join(dir, 'notes'))
  writeFileSync(join(dir, 'notes/todo.txt'), 'todo\n')
  writeFileSync(join(dir, 'notes/.gitignore'), '*\n')
  writeFileSync(join(dir, 'a/.gitignore'), 'x\n*.md\n')
  writeFileSync(join(dir, 'a/readme.md'), 'md\n')
  writeFileSync(join(dir, 'a/x'), 'ignored at launch\n')
  writeFileSync(join(dir, 'private.txt'), 'p\n')
  const exclude = join(dir, '.git', 'info', 'exclude')
  writeFileSync(exclude, 'private.txt\n')
  assert.equal(await hiddenFiles(dir, launchedAt), ['a/readme.md', 'notes/.gitignore', 'notes/todo.txt', 'private.txt'])
  const { tree, back } = await park(dir, launchedAt)
  assert.is(back, tree)
  assert.equal(git(dir, 'ls-tree', '-r', '--name-only', tree).split('\n'), [
    'a/.gitignore',
    'a/f',
    'a/readme.md',
    'notes/.gitignore',
    'notes/todo.txt',
    'private.txt',
  ])
  // info/exclude as it was before the launch: the branch's own rules.
  utimesSync(exclude, new Date(launchedAt - 1000), new Date(launchedAt - 1000))
  assert.equal(await hiddenFiles(dir, launchedAt), ['a/readme.md', 'notes/.gitignore', 'notes/todo.txt'])
  assert.equal((await ignoredAtLaunch(dir, launchedAt)).map((p) => p.path).sort(), ['a/x', 'private.txt'])
})

test('a rule the lane committed is its own: the launch rules are those of the commit the worktree was made at', async () => {
  const dir = repo({ '.gitignore': 'node_modules/\n', 'a.txt': 'a\n' })
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n*.secret\n')
  git(dir, 'commit', '-qam', 'the lane hides its own files')
  writeFileSync(join(dir, 'x.secret'), 'work\n')
  mkdirSync(join(dir, 'node_modules'))
  writeFileSync(join(dir, 'node_modules', 'dep.js'), 'dep\n')
  assert.is(git(dir, 'status', '--porcelain'), '')
  assert.equal(await hiddenFiles(dir, Date.now()), ['x.secret'])
  assert.equal(
    (await ignoredAtLaunch(dir, Date.now())).map((p) => p.path),
    ['node_modules/'],
  )
  // Without the log of HEAD, the rules of HEAD.
  rmSync(join(dir, '.git', 'logs'), { recursive: true })
  assert.equal(await hiddenFiles(dir, Date.now()), [])
})

test("a respawn in the worktree of an earlier lane: rules written after the worktree was made are not the branch's, whenever the respawn launched", async () => {
  const main = repo({ 'a.txt': 'a\n' })
  const wt = join(BASE, `wt${n++}`)
  git(main, 'worktree', 'add', '-q', '--detach', wt)
  const made = Date.now() - 60_000
  utimesSync(join(main, '.git', 'worktrees', wt.split('/').pop()!, 'commondir'), new Date(made), new Date(made))
  writeFileSync(join(wt, 'kept.txt'), 'work of the earlier lane\n')
  writeFileSync(join(main, '.git', 'info', 'exclude'), 'kept.txt\n')
  utimesSync(join(main, '.git', 'info', 'exclude'), new Date(made + 1000), new Date(made + 1000))
  assert.equal(await hiddenFiles(wt, Date.now()), ['kept.txt'], 'the respawn launched now, after the rule was written')
  assert.equal(await hiddenFiles(wt, made - 5000), ['kept.txt'])
})

test.run()
