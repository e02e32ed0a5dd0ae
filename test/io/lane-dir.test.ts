import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { revParse } from '../../kernel/io/git.js'
import { dirIdOf, identityOf, worktreeAt, writeLaunchId } from '../../kernel/io/lane-dir.js'
import { scratchDir } from '../helpers/home.js'

// What identifies a lane's directory on disk (issue 16 item 2), and refs asked as refs, never as options (item 13).

const BASE = scratchDir('io-lane-dir')
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
}
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

function repo(name: string): string {
  const r = join(BASE, name)
  mkdirSync(r, { recursive: true })
  git(r, 'init', '-q', '-b', 'main')
  git(r, 'commit', '-q', '--allow-empty', '-m', 'one')
  return r
}

test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('a worktree carries the launch id written into its git directory; one removed and added again at the path does not', async () => {
  const r = repo('worktrees')
  const dir = join(BASE, 'lanes', 'col-a-b')
  mkdirSync(join(BASE, 'lanes'))
  git(r, 'worktree', 'add', '-q', '-b', 'col-a/b', dir)
  await writeLaunchId(dir, 'L1')
  assert.is(identityOf(dir).launch, 'L1')
  assert.equal(await worktreeAt(r, dir), { branch: 'col-a/b', locked: false })
  git(r, 'worktree', 'remove', dir)
  assert.is(await worktreeAt(r, dir), undefined)
  git(r, 'worktree', 'add', '-q', '--lock', '-b', 'col/a-b', dir)
  assert.is(
    identityOf(dir).launch,
    undefined,
    'git reuses the admin directory name; the launch id went with the old one',
  )
  assert.equal(await worktreeAt(r, dir), { branch: 'col/a-b', locked: true })
})

test('a directory removed and made again at the same path has another identity', () => {
  const dir = join(BASE, 'play')
  mkdirSync(dir, { recursive: true })
  const first = dirIdOf(dir)
  assert.is(dirIdOf(dir), first)
  rmSync(dir, { recursive: true })
  mkdirSync(dir)
  assert.is.not(dirIdOf(dir), first)
  rmSync(dir, { recursive: true })
  assert.is(dirIdOf(dir), undefined)
})

test('revParse asks for a ref as a ref: an option-like value names no commit and changes nothing', async () => {
  const r = repo('refs')
  assert.is(await revParse(r, 'main'), git(r, 'rev-parse', 'main'))
  for (const v of ['--lock', '--git-dir=/', '-q', '--all']) assert.is(await revParse(r, v), undefined, v)
})

test.run()
