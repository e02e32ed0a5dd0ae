import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { scratchDir } from '../helpers/home.js'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fetchOrigin } from '../../kernel/io/git.js'

// fetchOrigin: every ask gets a fetch that began after it, and concurrent asks share fetches (SPEC.md 4.1 start,
// launch rule 5: the base is fetched before every git-backed launch).

const BASE = scratchDir('io-git-fetch')
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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A checkout whose origin, once it has served a fetch, notes it and holds the fetch open another 500 ms. */
function world() {
  const origin = join(BASE, 'origin.git')
  const checkout = join(BASE, 'checkout')
  const other = join(BASE, 'other')
  const servedLog = join(BASE, 'served')
  mkdirSync(BASE, { recursive: true })
  git(BASE, 'init', '-q', '--bare', '-b', 'main', origin)
  git(BASE, 'clone', '-q', origin, other)
  git(other, 'commit', '-q', '--allow-empty', '-m', 'one')
  git(other, 'push', '-q', 'origin', 'main')
  git(BASE, 'clone', '-q', origin, checkout)
  const slow = join(BASE, 'slow-upload-pack')
  writeFileSync(slow, `#!/bin/sh\ngit-upload-pack "$@"\necho served >> '${servedLog}'\nsleep 0.5\n`, { mode: 0o755 })
  git(checkout, 'config', 'remote.origin.uploadpack', slow)
  return {
    checkout,
    other,
    served: () => (existsSync(servedLog) ? readFileSync(servedLog, 'utf8').split('\n').length - 1 : 0),
  }
}

test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('asks made while a fetch runs share one later fetch, which brings what origin held when they asked', async () => {
  const w = world()
  const a = fetchOrigin(w.checkout, Date.now())
  while (w.served() < 1) await sleep(10) // a has what origin held, and is held open
  const early = fetchOrigin(w.checkout, Date.now() - 10_000) // asked before a began: a serves it
  assert.is(early, a)
  git(w.other, 'commit', '-q', '--allow-empty', '-m', 'two')
  git(w.other, 'push', '-q', 'origin', 'main')
  const pushed = git(w.other, 'rev-parse', 'HEAD')
  const b = fetchOrigin(w.checkout, Date.now())
  const c = fetchOrigin(w.checkout, Date.now())
  const d = fetchOrigin(w.checkout, Date.now())
  assert.ok(b !== a, 'a fetch under way that began before the ask does not serve it')
  assert.ok(c === b && d === b, 'asks made while a fetch waits for its turn join it')
  await Promise.all([a, b, c, d])
  assert.is(w.served(), 2, 'two fetches for five asks')
  // a was served before the push: only a fetch begun after b's ask brings the pushed commit.
  assert.is(git(w.checkout, 'rev-parse', 'origin/main'), pushed, 'what origin held when b asked is here')
  // Once everything settled, a new ask starts a new fetch.
  await fetchOrigin(w.checkout, Date.now())
  assert.is(w.served(), 3)
})

test.run()
