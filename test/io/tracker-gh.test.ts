import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeGhState } from '../../fixtures/fake-gh.js'
import { ghAuthStatus, GhTracker } from '../../kernel/io/trackers/gh.js'
import { rejection, scratchDir } from '../helpers/home.js'
import { ghEnv, SYSTEM_PATH } from '../helpers/gh.js'

/** The gh tracker driving the stand-in gh (fixtures/gh-bin), which checks its arguments as the real one does. */

const BASE = scratchDir('io-tracker-gh')
mkdirSync(BASE, { recursive: true })
const STATE = join(BASE, 'gh-state.json')
const LOG = join(BASE, 'gh-log.jsonl')
/** The stand-in gh's environment; `path` without GH_BIN is a machine with no gh. */
const env = (path?: string) => ({
  ...process.env,
  ...ghEnv(STATE),
  ...(path ? { PATH: path } : {}),
  FAKE_HARNESS_LOG: LOG,
})
const gh = new GhTracker({ env: env() })
const issue = (number: number, repo = 'app') => ({ owner: 'acme', repo, number })

function world(extra: Partial<FakeGhState> = {}) {
  const state: FakeGhState = {
    loggedIn: true,
    repos: {
      'acme/app': {
        '12': { title: 'Login fails', body: 'Steps:\n1. log in', state: 'OPEN' },
        '13': { title: 'Old one', body: '', state: 'CLOSED' },
        '14': {
          title: 'Busy',
          body: 'many comments',
          state: 'OPEN',
          comments: Array.from({ length: 150 }, (_, i) => ({ id: i + 1, body: `c${i + 1}` })),
        },
      },
    },
    ...extra,
  }
  writeFileSync(STATE, JSON.stringify(state))
  writeFileSync(LOG, '')
}
const calls = () =>
  readFileSync(LOG, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.event === 'start')
    .map((r) => r.argv.join(' '))

test.after(() => {
  rmSync(BASE, { recursive: true, force: true })
})

test('resolve: title, body, url and state of an open and a closed issue', async () => {
  world()
  assert.equal(await gh.resolve(issue(12)), {
    title: 'Login fails',
    body: 'Steps:\n1. log in',
    url: 'https://github.com/acme/app/issues/12',
    state: 'open',
  })
  assert.equal(await gh.resolve(issue(13)), {
    title: 'Old one',
    body: '',
    url: 'https://github.com/acme/app/issues/13',
    state: 'closed',
  })
  assert.equal(calls(), [
    'issue view 12 -R acme/app --json title,body,url,state',
    'issue view 13 -R acme/app --json title,body,url,state',
  ])
})

test('comment posts the body through stdin, and comments reads every page back', async () => {
  world()
  const body = "A report\nwith 'quotes', $(no shell) and a marker\n<!-- svc-report conv-x seq 1 -->"
  assert.equal(await gh.comment(issue(12), body), {
    posted: true,
    url: 'https://github.com/acme/app/issues/12#issuecomment-1001',
  })
  assert.equal(await gh.comments(issue(12)), [{ id: '1001', body }])
  const many = await gh.comments(issue(14))
  assert.is(many.length, 150)
  assert.equal(
    [many[0], many[149]],
    [
      { id: '1', body: 'c1' },
      { id: '150', body: 'c150' },
    ],
  )
  assert.equal(calls().slice(-2), [
    'api repos/acme/app/issues/14/comments?per_page=100&page=1',
    'api repos/acme/app/issues/14/comments?per_page=100&page=2',
  ])
})

test('no such issue, no such repository: not_found, one line each', async () => {
  world()
  const e = await rejection(gh.resolve(issue(99)))
  assert.equal([(e as { code?: string }).code, e.message], ['not_found', 'no issue gh:acme/app#99 on GitHub'])
  const r = await rejection(gh.resolve(issue(1, 'nope')))
  assert.equal(
    [(r as { code?: string }).code, r.message],
    ['not_found', 'no repository acme/nope on GitHub (or this login cannot see it)'],
  )
  assert.is((await rejection(gh.comments(issue(99)))).message, 'no issue gh:acme/app#99 on GitHub')
})

test('gh missing: the refusal says so and how to fix it', async () => {
  world()
  const e = (await rejection(new GhTracker({ env: env(SYSTEM_PATH) }).resolve(issue(12)))) as Error & {
    code: string
    hint: string
  }
  assert.equal(
    [e.code, e.message, e.hint],
    [
      'unavailable',
      'gh is not installed, so svc cannot reach gh:acme/app#12',
      'install gh (https://cli.github.com), then log in with gh auth login',
    ],
  )
})

test('gh not logged in (exit 4): the refusal says so and how to fix it, for reads and posts alike', async () => {
  world({ loggedIn: false })
  for (const p of [() => gh.resolve(issue(12)), () => gh.comment(issue(12), 'x'), () => gh.comments(issue(12))]) {
    const e = (await rejection(p())) as Error & { code: string; hint: string }
    assert.equal(
      [e.code, e.message, e.hint],
      ['unavailable', 'gh is not logged in, so svc cannot reach gh:acme/app#12', 'gh auth login'],
    )
  }
  assert.equal(JSON.parse(readFileSync(STATE, 'utf8')).repos['acme/app']['12'].comments, undefined, 'nothing posted')
})

test('an answer that is not the JSON asked for is one clear line, not a crash', async () => {
  world({ repos: { 'acme/app': { '12': { title: 'x', body: 'y', state: 'MERGED' as 'OPEN' } } } })
  const e = await rejection(gh.resolve(issue(12)))
  assert.is(
    e.message,
    "gh issue view 12 -R acme/app answered with something other than the issue's JSON: " +
      '{"title":"x","body":"y","url":"https://github.com/acme/app/issues/12","state":"MERGED"}',
  )
})

test('gh auth status: logged in with the account line, or not with what gh said', async () => {
  world({ account: 'octo' })
  assert.equal(await ghAuthStatus({ env: env() }), {
    loggedIn: true,
    detail: 'Logged in to github.com account octo (keyring)',
  })
  world({ loggedIn: false })
  assert.equal(await ghAuthStatus({ env: env() }), {
    loggedIn: false,
    detail: 'You are not logged into any GitHub hosts. To log in, run: gh auth login',
  })
})

test.run()
