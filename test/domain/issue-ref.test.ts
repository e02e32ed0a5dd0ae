import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  formatIssueRef,
  issueSlug,
  issueTitleFits,
  mayCloseHere,
  onOrigin,
  parseGithubRemote,
  parseIssueRef,
  type IssueRef,
} from '../../kernel/domain/issue-ref.js'
import { ALLOWED, allow, refuse, type Decision } from '../../kernel/domain/refusal.js'

const ok = (text: string): IssueRef => {
  const p = parseIssueRef(text)
  if (!p.ok) throw new Error(`${text}: ${p.message}`)
  const r = onOrigin(p.value, { owner: 'acme', repo: 'app' })
  if (!r.ok) throw new Error(`${text}: ${r.message}`)
  return r.value
}
const refusal = (text: string) => {
  const p = parseIssueRef(text)
  return p.ok ? '(accepted)' : p.message
}

test('references that parse, printed back in their one canonical form', () => {
  const table: [string, string][] = [
    ['local:1', 'local:1'],
    ['local:42', 'local:42'],
    [' local:7 ', 'local:7'],
    ['local:999999999', 'local:999999999'],
    ['gh:acme/app#12', 'gh:acme/app#12'],
    ['gh:Acme/App#12', 'gh:acme/app#12'],
    ['gh:a-b/c.d_e-f#3', 'gh:a-b/c.d_e-f#3'],
    ['gh:acme/.github#5', 'gh:acme/.github#5'],
    ['gh:x/y#1', 'gh:x/y#1'],
    ['#12', 'gh:acme/app#12'],
  ]
  for (const [text, printed] of table) assert.is(formatIssueRef(ok(text)), printed, text)
})

test('references refused, each with the reason on one line', () => {
  const table: [string, string][] = [
    ['', "'' is not an issue reference: write local:<n>, gh:<owner>/<repo>#<n> or #<n>"],
    ['7', "'7' is not an issue reference: write local:<n>, gh:<owner>/<repo>#<n> or #<n>"],
    ['local:', "'local:' is not an issue reference: the number after local: must be a whole number from 1"],
    ['local:0', "'local:0' is not an issue reference: the number after local: must be a whole number from 1"],
    ['local:07', "'local:07' is not an issue reference: the number after local: must be a whole number from 1"],
    ['local:-1', "'local:-1' is not an issue reference: the number after local: must be a whole number from 1"],
    ['local:1e3', "'local:1e3' is not an issue reference: the number after local: must be a whole number from 1"],
    [
      'local:1000000000',
      "'local:1000000000' is not an issue reference: the number after local: must be a whole number from 1",
    ],
    ['#', "'#' is not an issue reference: the number after # must be a whole number from 1"],
    ['#x', "'#x' is not an issue reference: the number after # must be a whole number from 1"],
    ['gh:acme/app', "'gh:acme/app' is not an issue reference: write gh:<owner>/<repo>#<n>"],
    ['gh:acme#3', "'gh:acme#3' is not an issue reference: write gh:<owner>/<repo>#<n>"],
    ['gh:a/b/c#3', "'gh:a/b/c#3' is not an issue reference: write gh:<owner>/<repo>#<n>"],
    ['gh:acme/app#0', "'gh:acme/app#0' is not an issue reference: the number after # must be a whole number from 1"],
    ['gh:acme/app#', "'gh:acme/app#' is not an issue reference: the number after # must be a whole number from 1"],
    [
      'gh:-acme/app#1',
      "'gh:-acme/app#1' is not an issue reference: '-acme' is not a GitHub account name (letters, digits and " +
        'hyphens, at most 39, not starting with a hyphen)',
    ],
    [
      'gh:ac.me/app#1',
      "'gh:ac.me/app#1' is not an issue reference: 'ac.me' is not a GitHub account name (letters, digits and " +
        'hyphens, at most 39, not starting with a hyphen)',
    ],
    [
      'gh:ac+me/app#1',
      "'gh:ac+me/app#1' is not an issue reference: 'ac+me' is not a GitHub account name (letters, digits and " +
        'hyphens, at most 39, not starting with a hyphen)',
    ],
    [
      `gh:${'a'.repeat(40)}/app#1`,
      `'gh:${'a'.repeat(40)}/app#1' is not an issue reference: '${'a'.repeat(40)}' is not a GitHub account name ` +
        `(letters, digits and hyphens, at most 39, not starting with a hyphen)`,
    ],
    [
      'gh:acme/#1',
      "'gh:acme/#1' is not an issue reference: '' is not a GitHub repository name (letters, digits, '.', '_' and " +
        "'-', at most 100)",
    ],
    [
      'gh:acme/a+b#1',
      "'gh:acme/a+b#1' is not an issue reference: 'a+b' is not a GitHub repository name (letters, digits, '.', '_' " +
        "and '-', at most 100)",
    ],
    [
      'gh:acme/..#1',
      "'gh:acme/..#1' is not an issue reference: '..' is not a GitHub repository name (letters, digits, '.', '_' " +
        "and '-', at most 100)",
    ],
    [
      'gh:acme/a..b#1',
      "'gh:acme/a..b#1' is not an issue reference: the repository name 'a..b' holds '..', which no git branch may; " +
        'svc cannot run workers on it',
    ],
    [
      `gh:acme/${'r'.repeat(101)}#1`,
      `'gh:acme/${'r'.repeat(101)}#1' is not an issue reference: '${'r'.repeat(101)}' is not a GitHub repository ` +
        `name (letters, digits, '.', '_' and '-', at most 100)`,
    ],
  ]
  for (const [text, message] of table) assert.is(refusal(text), message, text)
})

test('#<n> needs the origin on github.com as a fact; other references ignore it', () => {
  const hash = parseIssueRef('#12')
  assert.equal(hash, { ok: true, value: { tracker: 'origin', number: 12 } })
  if (!hash.ok) return
  assert.equal(
    onOrigin(hash.value, undefined),
    refuse(
      'usage',
      "'#12' is not an issue reference: #<n> names an issue of the project's origin on github.com, and this " +
        "project's origin is not there; write gh:<owner>/<repo>#12",
    ),
  )
  assert.equal(onOrigin({ tracker: 'local', number: 3 }, undefined), {
    ok: true,
    value: { tracker: 'local', number: 3 },
  })
  assert.equal(onOrigin({ tracker: 'gh', owner: 'a', repo: 'b', number: 1 }, { owner: 'x', repo: 'y' }), {
    ok: true,
    value: { tracker: 'gh', owner: 'a', repo: 'b', number: 1 },
  })
})

test('slugs: local-<n> and gh-<owner>+<repo>-<n>, lower case', () => {
  const table: [string, string][] = [
    ['local:7', 'local-7'],
    ['gh:acme/app#12', 'gh-acme+app-12'],
    ['gh:ACME/App#12', 'gh-acme+app-12'],
    ['gh:acme/.github#5', 'gh-acme+.github-5'],
    ['gh:a-b/c-d#1', 'gh-a-b+c-d-1'],
  ]
  for (const [text, slug] of table) assert.is(issueSlug(ok(text)), slug, text)
})

test('slugs never collide where hyphens, dots and digits could make them (owner, repo and number kept apart)', () => {
  const near = [
    'gh:a-b/c#1',
    'gh:a/b-c#1',
    'gh:a/b#1',
    'gh:a/b-1#1',
    'gh:a/b#11',
    'gh:a-b/c-1#1',
    'gh:a/b-c-1#1',
    'gh:a/b.c#1',
    'gh:a/b-i2#1',
    'gh:local/7#1',
    'local:1',
    'local:11',
    'gh:a1/b#1',
    'gh:a/1b#1',
  ]
  const slugs = near.map((t) => issueSlug(ok(t)))
  assert.is(new Set(slugs).size, near.length, slugs.join(' '))
})

test('slugs are valid git ref components for every name shape allowed', () => {
  // git check-ref-format: no '..', no component starting with '.', none ending with '.' or '.lock', no control
  // characters, space, ~ ^ : ? * [ \ nor '@{'.
  const valid = (c: string) => !/\.\.|^\.|\.$|\.lock$|[\x00-\x20~^:?*[\\]|@\{/.test(c)
  for (const t of ['gh:acme/.github#5', 'gh:acme/x.lock#2', 'gh:acme/end.#3', 'gh:acme/_#1', 'gh:a/-#1', 'local:1'])
    assert.ok(valid(issueSlug(ok(t))), t)
})

test('remotes on github.com give the owner and repository; others give nothing', () => {
  const table: [string, { owner: string; repo: string } | undefined][] = [
    ['https://github.com/acme/app.git', { owner: 'acme', repo: 'app' }],
    ['https://github.com/acme/app', { owner: 'acme', repo: 'app' }],
    ['https://github.com/Acme/App/', { owner: 'acme', repo: 'app' }],
    ['https://user@github.com/acme/app.git', { owner: 'acme', repo: 'app' }],
    ['git@github.com:acme/app.git', { owner: 'acme', repo: 'app' }],
    ['github.com:acme/app', { owner: 'acme', repo: 'app' }],
    ['ssh://git@github.com/acme/app.git', { owner: 'acme', repo: 'app' }],
    ['ssh://git@github.com:22/acme/my.repo.git', { owner: 'acme', repo: 'my.repo' }],
    ['https://gitlab.com/acme/app.git', undefined],
    ['https://github.com.evil.example/acme/app.git', undefined],
    ['/srv/git/app.git', undefined],
    ['https://github.com/acme', undefined],
    ['https://github.com/acme/app/issues', undefined],
    ['git@github.com:ac.me/app.git', undefined],
  ]
  for (const [url, repo] of table) assert.equal(parseGithubRemote(url), repo, url)
})

test('a reference that is none is a usage refusal (the code every service gives it)', () => {
  assert.equal(
    parseIssueRef('local:0'),
    refuse('usage', "'local:0' is not an issue reference: the number after local: must be a whole number from 1"),
  )
})

test('issueTitleFits: a title is one line of plain text, trimmed; each refusal word for word', () => {
  const CASES: [string, Decision<{ title: string }>][] = [
    ['  Fix the login  ', allow({ title: 'Fix the login' })],
    ['', refuse('usage', 'the title is empty; pass --title <text>')],
    ['   ', refuse('usage', 'the title is empty; pass --title <text>')],
    ['one\ntwo', refuse('usage', 'the title must be one line; put the rest in --body or --body-file')],
    ['one\rtwo', refuse('usage', 'the title must be one line; put the rest in --body or --body-file')],
    ['  trailing newline\n', allow({ title: 'trailing newline' })],
    ['bell\x07', refuse('usage', 'the title holds a control character; write it as plain text')],
    ['esc \x1b[31mred', refuse('usage', 'the title holds a control character; write it as plain text')],
    ['del\x7fx', refuse('usage', 'the title holds a control character; write it as plain text')],
    ['tab\tin', refuse('usage', 'the title holds a control character; write it as plain text')],
  ]
  for (const [title, want] of CASES) assert.equal(issueTitleFits(title), want, JSON.stringify(title))
})

test('mayCloseHere: svc closes its own local issues only; a GitHub one is pointed to gh', () => {
  const CASES: [IssueRef, Decision][] = [
    [{ tracker: 'local', number: 3 }, ALLOWED],
    [
      { tracker: 'gh', owner: 'acme', repo: 'app', number: 12 },
      refuse(
        'usage',
        'svc closes only its own local issues; close gh:acme/app#12 on GitHub',
        'gh issue close 12 -R acme/app',
      ),
    ],
  ]
  for (const [ref, want] of CASES) assert.equal(mayCloseHere(ref), want, formatIssueRef(ref))
})

test.run()
