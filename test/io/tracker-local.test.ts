import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { LocalIssues } from '../../kernel/io/trackers/local.js'
import { rejection, scratchDir } from '../helpers/home.js'

const BASE = scratchDir('io-tracker-local')
let n = 0
const fresh = () => new LocalIssues(join(BASE, `p${++n}`, 'issues', 'app'), 'app')
const at = new Date('2026-01-02T03:04:05.678Z')

test.after(() => {
  rmSync(BASE, { recursive: true, force: true })
})

test('create, read, list and close: the file is YAML front matter then the body', async () => {
  const t = fresh()
  assert.is(await t.create('Fix the login', 'Steps:\n1. open\n', at), 1)
  assert.is(await t.create('Title: with a colon and "quotes"', '', at), 2)
  assert.is(
    readFileSync(t.path(1), 'utf8'),
    '---\ntitle: Fix the login\nstate: open\ncreated: 2026-01-02T03:04:05.678Z\n---\nSteps:\n1. open\n',
  )
  const one = await t.read(1)
  assert.equal(one, {
    number: 1,
    title: 'Fix the login',
    state: 'open',
    created: '2026-01-02T03:04:05.678Z',
    body: 'Steps:\n1. open\n',
    url: pathToFileURL(t.path(1)).href,
  })
  assert.is((await t.read(2)).title, 'Title: with a colon and "quotes"')
  assert.equal(await t.resolve(1), {
    title: 'Fix the login',
    body: 'Steps:\n1. open\n',
    url: pathToFileURL(t.path(1)).href,
    state: 'open',
  })
  const closedAt = new Date('2026-02-01T00:00:00.000Z')
  const c = await t.close(1, closedAt)
  assert.is(c.already, false)
  assert.is(c.issue.state, 'closed')
  assert.is(
    readFileSync(t.path(1), 'utf8'),
    '---\ntitle: Fix the login\nstate: closed\ncreated: 2026-01-02T03:04:05.678Z\nclosed: ' +
      '2026-02-01T00:00:00.000Z\n---\nSteps:\n1. open\n',
  )
  assert.is((await t.close(1, new Date())).already, true)
  assert.is((await t.read(1)).closed, '2026-02-01T00:00:00.000Z', 'a second close changes nothing')
  assert.equal(
    (await t.list()).map((i) => `${i.number} ${i.state}`),
    ['1 closed', '2 open'],
  )
})

test('racing creations never share a number, and each file is whole', async () => {
  const t = fresh()
  const made = await Promise.all(Array.from({ length: 16 }, (_, i) => t.create(`issue ${i}`, `body ${i}\n`, at)))
  assert.equal(
    [...made].sort((a, b) => a - b),
    Array.from({ length: 16 }, (_, i) => i + 1),
  )
  for (let i = 0; i < 16; i++) {
    const issue = await t.read(made[i])
    assert.is(issue.title, `issue ${i}`)
    assert.is(issue.body, `body ${i}\n`)
  }
  assert.equal(
    readdirSync(t.dir).filter((f) => !/^[0-9]+\.md$/.test(f)),
    [],
    'no temp file left behind',
  )
})

test('a number is never taken twice, even past a gap or a file made by hand', async () => {
  const t = fresh()
  mkdirSync(t.dir, { recursive: true })
  writeFileSync(t.path(7), '---\ntitle: by hand\nstate: open\ncreated: 2026-01-01T00:00:00Z\n---\n')
  writeFileSync(join(t.dir, '.8.md.123.1.tmp'), 'a temp file of an interrupted write')
  assert.is(await t.create('next', '', at), 8)
  assert.equal(
    (await t.list()).map((i) => i.number),
    [7, 8],
  )
})

test('a broken issue file is refused with one line naming the file and what is wrong', async () => {
  const t = fresh()
  mkdirSync(t.dir, { recursive: true })
  const table: [string, string][] = [
    [
      'no front matter\n',
      'no front matter: the file must begin with a --- line, then title, state and created, then a --- line',
    ],
    [
      '---\ntitle: x\nstate: open\ncreated: 2026-01-01T00:00:00Z\n',
      'no front matter: the file must begin with a --- line, then title, state and created, then a --- line',
    ],
    [
      '---\ntitle: [unclosed\n---\n',
      'the front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end ' +
        'with a ] (line 2, column 17)',
    ],
    [
      '---\ntitle: x\nstate: done\ncreated: 2026-01-01T00:00:00Z\n---\n',
      'front matter state: must be open or closed, not "done"',
    ],
    ['---\nstate: open\ncreated: 2026-01-01T00:00:00Z\n---\n', 'front matter title: missing'],
    [
      '---\ntitle: ""\nstate: open\ncreated: 2026-01-01T00:00:00Z\n---\n',
      'front matter title: must not be empty, not ""',
    ],
    [
      '---\ntitle: x\nstate: open\ncreated: yesterday\n---\n',
      'front matter created: must be an ISO timestamp, not "yesterday"',
    ],
    ['---\ntitle: 12\nstate: open\ncreated: 2026-01-01T00:00:00Z\n---\n', 'front matter title: must be text, not 12'],
    ['---\n---\nbody\n', 'front matter: must be a mapping with title, state and created, not null'],
  ]
  for (const [text, what] of table) {
    writeFileSync(t.path(1), text)
    const e = await rejection(t.read(1))
    assert.is(e.message, `${t.path(1)}: ${what}`, text)
    assert.not.match(e.message, '\n')
  }
  assert.is((await rejection(t.list())).message.startsWith(`${t.path(1)}: `), true, 'list refuses too, naming the file')
})

test('no such issue', async () => {
  const t = fresh()
  const e = await rejection(t.read(3))
  assert.is(e.message, 'no issue local:3 in project app')
  assert.is((e as { code?: string }).code, 'not_found')
  assert.equal(await t.list(), [], 'a project with no issue directory has no issues')
})

test('comments: one file each, numbered exclusively, read back in order', async () => {
  const t = fresh()
  await t.create('x', '', at)
  assert.equal(await t.comments(1), [])
  const posted = await Promise.all(['a', 'b', 'c', 'd'].map((b) => t.comment(1, `comment ${b}\n<!-- m ${b} -->`)))
  assert.equal(
    posted.map((p) => p.url).sort(),
    [1, 2, 3, 4].map((k) => pathToFileURL(join(t.dir, '1.comments', `${k}.md`)).href),
  )
  const comments = await t.comments(1)
  assert.equal(
    comments.map((c) => c.id),
    ['1', '2', '3', '4'],
  )
  assert.equal(
    comments.map((c) => c.body).sort(),
    ['a', 'b', 'c', 'd'].map((b) => `comment ${b}\n<!-- m ${b} -->`),
  )
  assert.is((await rejection(t.comment(2, 'x'))).message, 'no issue local:2 in project app')
})

test.run()
