import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakeGhState } from '../../fixtures/fake-gh.js'
import { createSampleProject, gitIn, type SampleProject } from '../../cli/demo/sample-project.js'
import { TestHome } from '../helpers/home.js'
import { ghEnv, SYSTEM_PATH } from '../helpers/gh.js'

/** `svc issue new|list|show|close` against a real kernel: exact stdout, stderr and exit codes. The help and the first
 * issue are the built program; the other calls run the CLI's dispatch in this process. GitHub issues go through the
 * stand-in gh (fixtures/gh-bin) on the kernel's PATH. */

let h: TestHome
let app: SampleProject
let yamlPath: string

function twoProjects(h: TestHome): SampleProject {
  const a = createSampleProject(join(h.home, 'src'), 'app')
  const b = createSampleProject(join(h.home, 'src'), 'web')
  writeFileSync(
    join(h.service, 'projects.yaml'),
    `app:\n  path: ${JSON.stringify(a.checkout)}\nweb:\n  path: ${JSON.stringify(b.checkout)}\n`,
  )
  return a
}

test.before(async () => {
  h = new TestHome('issues')
  h.extraEnv = { PATH: SYSTEM_PATH }
  h.inProcess = true
  app = twoProjects(h)
  yamlPath = join(h.service, 'projects.yaml')
})
test.after(async () => {
  await h.stop()
})

const fails = async (args: string[], stderr: string, opts: Parameters<TestHome['svc']>[1] = {}) => {
  const r = await h.svc(args, opts)
  assert.equal([r.code, r.stdout, r.stderr], [1, '', stderr], args.join(' '))
}

test('--help is true for every issue verb', async () => {
  for (const verb of ['new', 'list', 'show', 'close']) {
    const r = await h.svc(['issue', verb, '--help'], { here: false })
    assert.is(r.code, 0, verb)
    assert.match(r.stdout, `svc issue ${verb}`)
  }
  assert.match((await h.svc(['issue', 'new', '--help'], { here: false })).stdout, '--body-file')
})

test('new prints the reference (its only line); numbers go up per project; the body comes from --body or --body-file', async () => {
  const first = ['issue', 'new', '--project', 'app', '--title', 'Login fails', '--body', 'Steps: log in']
  assert.equal(await h.svc(first, { here: false }), {
    code: 0,
    stdout: 'local:1\n',
    stderr: '',
  })
  writeFileSync(join(h.home, 'body.md'), '# Context\n\nThe deck is slow.\n')
  assert.is(
    await h.ok(['issue', 'new', '--title', 'Deck is slow', '--body-file', '../../../body.md'], {
      cwd: join(app.checkout, 'src'),
    }),
    'local:2\n',
    'project from the checkout holding the cwd; file relative to it',
  )
  assert.is(await h.ok(['issue', 'new', '--project', 'web', '--title', 'Web one']), 'local:1\n')
  assert.is(
    readFileSync(join(h.service, 'issues', 'app', '2.md'), 'utf8').replace(/created: .*\n/, 'created: T\n'),
    '---\ntitle: Deck is slow\nstate: open\ncreated: T\n---\n# Context\n\nThe deck is slow.\n',
  )
  const json = JSON.parse(await h.ok(['issue', 'new', '--project', 'web', '--title', 'Json', '--json']))
  assert.equal(Object.keys(json), ['ref', 'tracker', 'project', 'title', 'state', 'url', 'created', 'body'])
  assert.equal(
    [json.ref, json.tracker, json.project, json.title, json.state, json.body],
    ['local:2', 'local', 'web', 'Json', 'open', ''],
  )
})

test('show and close: exact text; closing twice says so; list filters by project and state', async () => {
  const show = await h.ok(['issue', 'show', 'local:2', '--project', 'app'])
  const created = /created: (.*)\n/.exec(show)![1]
  assert.is(
    show,
    `ref: local:2\nproject: app\nstate: open\ntitle: Deck is slow\nurl: file://${h.service}` +
      `/issues/app/2.md\ncreated: ${created}\n\n# Context\n\nThe deck is slow.\n`,
  )
  assert.equal(await h.svc(['issue', 'close', 'local:1'], { cwd: app.checkout }), {
    code: 0,
    stdout: 'closed local:1\n',
    stderr: '',
  })
  assert.equal(await h.svc(['issue', 'close', 'local:1', '--project', 'app']), {
    code: 0,
    stdout: 'local:1 was already closed\n',
    stderr: '',
  })
  const shown = JSON.parse(await h.ok(['issue', 'show', 'local:1', '--project', 'app', '--json']))
  assert.equal([shown.state, typeof shown.closed], ['closed', 'string'])
  const list = (await h.ok(['issue', 'list'])).split('\n')
  assert.is(list[0], 'REF      PROJECT  STATE   AGE  TITLE')
  assert.equal(
    list.slice(1).map((l) => l.replace(/ +\d+s +/, ' AGE ')),
    [
      'local:1  app      closed AGE Login fails',
      'local:2  app      open AGE Deck is slow',
      'local:1  web      open AGE Web one',
      'local:2  web      open AGE Json',
      '',
    ],
  )
  assert.equal(
    JSON.parse(await h.ok(['issue', 'list', '--project', 'app', '--state', 'open', '--json'])).map(
      (i: { ref: string }) => i.ref,
    ),
    ['local:2'],
  )
  assert.equal(
    JSON.parse(await h.ok(['issue', 'list', '--state', 'closed', '--json'])).map(
      (i: { ref: string; project: string }) => `${i.project} ${i.ref}`,
    ),
    ['app local:1'],
  )
})

test('refusals: one line (and a hint where one helps), exit 1', async () => {
  await fails(
    ['issue', 'new', '--project', 'nope', '--title', 'x'],
    `svc: no project nope in ${yamlPath}\nhint: projects: app, web\n`,
  )
  // A project key is looked up as an own key of projects.yaml (issue 16 item 16), never through the prototype.
  for (const key of ['__proto__', 'constructor', 'toString'])
    await fails(
      ['issue', 'new', '--project', key, '--title', 'x'],
      `svc: no project ${key} in ${yamlPath}\nhint: projects: app, web\n`,
    )
  await fails(['issue', 'new', '--project', 'app', '--title', '   '], 'svc: the title is empty; pass --title <text>\n')
  await fails(['issue', 'new', '--project', 'app'], "svc: --title is required: the issue's one-line title\n")
  await fails(
    ['issue', 'new', '--project', 'app', '--title', 'a\nb'],
    'svc: the title must be one line; put the rest in --body or --body-file\n',
  )
  await fails(
    ['issue', 'new', '--project', 'app', '--title', 'red \x1b[31m title'],
    'svc: the title holds a control character; write it as plain text\n',
  )
  await fails(['issue', 'show', '', '--project', 'app'], 'svc: ref: must not be empty\n')
  await fails(
    ['issue', 'new', '--project', 'app', '--title', 'x', '--body', 'b', '--body-file', 'f'],
    'svc: pass one of --body or --body-file, not both\n',
  )
  await fails(
    ['issue', 'new', '--project', 'app', '--title', 'x', '--body-file', 'missing.md'],
    `svc: cannot read the body file ${h.home}/missing.md: ENOENT\n`,
  )
  await fails(
    ['issue', 'new', '--title', 'x'],
    'svc: no project for the new issue: pass --project, or run from inside a checkout listed in projects.yaml\n',
  )
  await fails(
    ['issue', 'show', 'local:1'],
    'svc: no project for issue local:1: pass --project, or run from inside a checkout listed in projects.yaml\n',
  )
  await fails(
    ['issue', 'show', 'seven', '--project', 'app'],
    "svc: 'seven' is not an issue reference: write local:<n>, gh:<owner>/<repo>#<n> or #<n>\n",
  )
  await fails(
    ['issue', 'show', 'local:0', '--project', 'app'],
    "svc: 'local:0' is not an issue reference: the number after local: must be a whole number from 1\n",
  )
  await fails(
    ['issue', 'show', 'local:9', '--project', 'app'],
    'svc: no issue local:9 in project app\nhint: svc issue list shows the issues\n',
  )
  await fails(
    ['issue', 'close', 'local:9', '--project', 'app'],
    'svc: no issue local:9 in project app\nhint: svc issue list shows the issues\n',
  )
  await fails(['issue', 'list', '--state', 'done'], "svc: --state must be one of open, closed, not 'done'\n")
  await fails(['issue', 'list', '--project', 'nope'], `svc: no project nope in ${yamlPath}\nhint: projects: app, web\n`)
  await fails(
    ['issue', 'show', '#3'],
    "svc: '#3' is not an issue reference: #<n> names an issue of the project's origin on github.com, and this " +
      "project's origin is not there; write gh:<owner>/<repo>#3\n",
    { cwd: app.checkout },
  )
  await fails(
    ['issue', 'close', 'gh:acme/app#3'],
    'svc: svc closes only its own local issues; close gh:acme/app#3 on GitHub\nhint: gh issue close 3 -R acme/app\n',
  )
  await fails(
    ['issue', 'show', 'gh:acme/app#3'],
    'svc: gh is not installed, so svc cannot reach gh:acme/app#3\nhint: install gh (https://cli.github.com), then ' +
      'log in with gh auth login\n',
  )
})

test('a broken issue file is refused with one line naming the file; nothing else is touched', async () => {
  const path = join(h.service, 'issues', 'web', '1.md')
  const before = readFileSync(path, 'utf8')
  writeFileSync(path, before.replace('state: open', 'state: done'))
  await fails(
    ['issue', 'show', 'local:1', '--project', 'web'],
    `svc: ${path}: front matter state: must be open or closed, not "done"\n`,
  )
  await fails(
    ['issue', 'close', 'local:1', '--project', 'web'],
    `svc: ${path}: front matter state: must be open or closed, not "done"\n`,
  )
  assert.is(readFileSync(path, 'utf8'), before.replace('state: open', 'state: done'))
  writeFileSync(path, before)
})

test('GitHub issues through gh: gh:<owner>/<repo>#<n>, #<n> on the origin, not logged in', async () => {
  const g = new TestHome('issues-gh')
  g.inProcess = true
  try {
    const state = join(g.home, 'gh.json')
    const write = (s: FakeGhState) => writeFileSync(state, JSON.stringify(s))
    write({
      loggedIn: true,
      repos: { 'acme/app': { '12': { title: 'Login fails', body: 'On GitHub.', state: 'OPEN' } } },
    })
    g.extraEnv = ghEnv(state)
    const a = createSampleProject(join(g.home, 'src'), 'app')
    writeFileSync(join(g.service, 'projects.yaml'), `app:\n  path: ${JSON.stringify(a.checkout)}\n`)
    const text =
      'ref: gh:acme/app#12\nstate: open\ntitle: Login fails\nurl: https://github.com/acme/app/issues/12\n\nOn GitHub.\n'
    assert.equal(await g.svc(['issue', 'show', 'gh:Acme/App#12']), { code: 0, stdout: text, stderr: '' })
    gitIn(a.checkout, 'remote', 'set-url', 'origin', 'git@github.com:acme/app.git')
    assert.equal(await g.svc(['issue', 'show', '#12'], { cwd: a.checkout }), { code: 0, stdout: text, stderr: '' })
    assert.equal(JSON.parse(await g.ok(['issue', 'show', '#12', '--project', 'app', '--json'])), {
      ref: 'gh:acme/app#12',
      tracker: 'gh',
      title: 'Login fails',
      state: 'open',
      url: 'https://github.com/acme/app/issues/12',
      body: 'On GitHub.',
    })
    const none = await g.svc(['issue', 'show', 'gh:acme/app#13'])
    assert.equal([none.code, none.stderr], [1, 'svc: no issue gh:acme/app#13 on GitHub\n'])
    write({ loggedIn: false, repos: {} })
    const out = await g.svc(['issue', 'show', 'gh:acme/app#12'])
    assert.equal(
      [out.code, out.stdout, out.stderr],
      [1, '', 'svc: gh is not logged in, so svc cannot reach gh:acme/app#12\nhint: gh auth login\n'],
    )
  } finally {
    await g.stop()
  }
})

test.run()
