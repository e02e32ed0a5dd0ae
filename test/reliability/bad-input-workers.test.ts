import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { BAD_REFS, badInputSuite } from './bad-input-kit.js'

/** Bad input over every worker verb and route: each refused with one clear message, store and files unchanged. */
const kit = badInputSuite(
  'bad-workers',
  'bad input over the worker verbs and `/api/workers`: issue and conversation references, options, bodies, queries',
)
const { cli, http, unchanged } = kit

test('workers: bad issue references, conversation references, options and bodies on every worker verb and route', async () => {
  const { h, s, lane } = kit
  const BAD_ISSUES = [
    'local:0',
    'local:x',
    'local:',
    'gh:a/b',
    'gh:-a/b#1',
    'gh:a/b..c#1',
    'gh:a+b/c#1',
    '#0',
    '#x',
    'nope',
    'a\nb',
    'x'.repeat(201),
  ]
  const run = (issue: string, extra: string[] = []) => [
    'worker',
    'run',
    issue,
    '--prompt',
    'x',
    '--no-wait',
    '--project',
    s.project.key,
    ...extra,
  ]
  for (const i of BAD_ISSUES) {
    await cli(run(i))
    await cli(['worker', 'list', '--issue', i, '--project', s.project.key])
    await cli(['worker', 'wait', '--issue', i, '--project', s.project.key, '--timeout', '0'])
  }
  const verbs: ((r: string) => string[])[] = [
    (r) => ['worker', 'show', r],
    (r) => ['worker', 'stop', r],
    (r) => ['worker', 'reap', r],
    (r) => ['worker', 'wait', r, '--timeout', '0'],
    (r) => ['worker', 'wait', '--parent', r, '--timeout', '0'],
    (r) => ['worker', 'list', '--parent', r],
  ]
  for (const v of verbs) for (const r of BAD_REFS) await cli(v(r))
  for (const notWorker of [s.root, lane]) for (const v of verbs.slice(0, 4)) await cli(v(notWorker))
  const options: string[][] = [
    ['worker', 'run', 'local:1', '--no-wait'],
    ['worker', 'run', 'local:1', '--prompt', 'x', '--brief', join(h.home, '.gitconfig')],
    ['worker', 'run', 'local:1', '--brief', '/nonexistent'],
    run('local:1', ['--harness', 'vim']),
    run('local:1', ['--effort', 'max']),
    run('local:1', ['--reuse']),
    run('local:1', ['--from', 'no-such-ref']),
    ['worker', 'run', 'local:1', '--prompt', 'x', '--project', 'nope'],
    ['worker', 'wait'],
    ['worker', 'wait', lane, '--issue', 'local:1'],
    ['worker', 'wait', '--issue', 'local:1', '--project', s.project.key, '--after', '1.2'],
    ['worker', 'wait', '--parent', s.root, '--after', 'x'],
    ['worker', 'wait', '--parent', s.root, '--timeout', 'soon'],
    ['worker', 'report'],
    ['worker', 'report', '--file', 'a', '--stdin'],
    ['worker', 'report', '--stdin', '--status', 'done-ish'],
  ]
  for (const c of options) await cli(c)
  // An issue that does not exist, and `#<n>` on a project whose origin is not on GitHub.
  await cli(run('local:9'))
  await cli(run('#3'))
  // Refused from a lane (it may not run workers), and a report from anything but a worker.
  await cli(run('local:1'), { ...s.env, SERVICE_CONVERSATION: lane })
  assert.is(await cli(['worker', 'report', '--stdin'], s.env), 'svc: not inside a worker\n')
  assert.is(
    await cli(['worker', 'report', '--stdin'], { ...s.env, SERVICE_CONVERSATION: lane }),
    'svc: not inside a worker\n',
  )
  for (const verb of [
    ['worker', 'run', 'local:1'],
    ['worker', 'report'],
    ['worker', 'wait'],
    ['worker', 'list'],
    ['worker', 'show', 'x'],
    ['worker', 'stop', 'x'],
    ['worker', 'reap', 'x'],
  ])
    await cli([...verb, '--no-such-option'])

  const valid = { issue: 'local:1', prompt: 'x', conversation: s.root, noWait: true, project: s.project.key }
  for (const body of ['', '{', '[]', 'null', '"x"', '{"issue":', '\u0000']) await http('POST', '/api/workers', body)
  const wrong: Record<string, unknown[]> = {
    issue: [1, '', ...BAD_ISSUES],
    prompt: [1, null],
    harness: ['vim', 1],
    effort: ['max'],
    post: ['yes', 1],
    replace: ['no'],
    conversation: ['', 1, ...BAD_REFS],
    project: ['nope', 1],
  }
  for (const [field, values] of Object.entries(wrong))
    for (const value of values) await http('POST', '/api/workers', JSON.stringify({ ...valid, [field]: value }))
  for (const extra of [{ cwd: '/' }, { role: 'builder' }, { bogus: 1 }, { conversation: undefined }])
    await http('POST', '/api/workers', JSON.stringify({ ...valid, ...extra }))
  await http('POST', '/api/workers', JSON.stringify({ ...valid, conversation: lane }))
  await http('POST', '/api/workers', JSON.stringify({ ...valid, prompt: 'x'.repeat(5 * 1024 * 1024) }))
  for (const q of [
    'bogus=1',
    'issue=a&issue=b',
    'cwd=/',
    'parent=',
    ...BAD_ISSUES.slice(0, 6).map((i) => `issue=${encodeURIComponent(i)}&project=${s.project.key}`),
  ])
    await http('GET', `/api/workers?${q}`)
  for (const r of BAD_REFS) {
    await http('GET', `/api/workers?parent=${encodeURIComponent(r)}`)
    await http('GET', `/api/workers/${encodeURIComponent(r)}`)
    await http('POST', `/api/workers/${encodeURIComponent(r)}/reap`, '{}')
  }
  await http('GET', `/api/workers/${s.root}`)
  await http('POST', `/api/workers/${lane}/reap`, '{}')
  for (const body of ['{', '[]', '{"park":"yes"}', '{"keep":1}', '{"worker":"1"}'])
    await http('POST', `/api/workers/${s.root}/reap`, body)
  unchanged()
})

test.run()
