import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureKernel, httpTransport } from '../../cli/connect.js'
import { processIo } from '../../cli/io.js'
import { createSampleProject, writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { remotePort } from '../../kernel/port/client.js'
import type { KernelPort } from '../../kernel/port/port.js'
import type { FakeGhState } from '../../fixtures/fake-gh.js'
import { TestHome, alive, until } from '../helpers/home.js'
import { ghEnv } from '../helpers/gh.js'

/** `svc worker run --post`: each report is posted to its issue as one comment ending with its marker, exactly once,
 * even when the kernel is killed between the posting and its recording. */

let h: TestHome
test.before.each(() => {
  h = new TestHome('worker-post')
  writeFileSync(join(h.home, '.gitconfig'), '[user]\n\tname = T\n\temail = t@example.com\n')
  writeProjectsYaml(h.service, createSampleProject(join(h.home, 'src')))
})
test.after.each(async () => {
  await h.stop()
})

async function connect(env: Record<string, string> = {}): Promise<{ port: KernelPort; pid: number }> {
  const k = (await ensureKernel({ ...processIo(), env: h.env(env) }))!
  return { port: remotePort(httpTransport(k)), pid: k.pid }
}

const commentsDir = () => join(h.service, 'issues', 'sample', '1.comments')
const comments = () =>
  existsSync(commentsDir())
    ? readdirSync(commentsDir())
        .sort()
        .map((f) => readFileSync(join(commentsDir(), f), 'utf8'))
    : []
const MARKER = '<!-- svc-report conv-w-local-1-i1 seq 1 -->'

/** A worker driven by no harness, so the test files its reports as it (it has no key: its id is enough). */
async function runWorker(port: KernelPort, post: boolean) {
  await port.issueNew({ project: 'sample', title: 'Post here' })
  const root = await port.convNew({ harness: 'none', project: 'sample' })
  const w = await port.workerRun({
    issue: 'local:1',
    prompt: 'x',
    harness: 'none',
    post: post || undefined,
    conversation: root.id,
  })
  return w.worker
}

test('--post: the report becomes one comment on the issue, ending with its marker; the issue stays open', async () => {
  const { port } = await connect()
  const w = await runWorker(port, true)
  await port.workerReport({ conversation: w.id, body: 'BLOCKED which database?', status: 'blocked' })
  const posted = join(h.service, 'agents', `conv-${w.name}`, 'posted-1.json')
  assert.ok(existsSync(posted), 'the posting is recorded when the report is answered')
  assert.equal(comments(), [
    `**Worker report** blocked (conv-w-local-1-i1, report 1)\n\nBLOCKED which database?\n\n${MARKER}`,
  ])
  // The service never closes the issue.
  assert.is((await port.issueShow({ ref: 'local:1', project: 'sample' })).state, 'open')
})

test('--post with the kernel killed between posting and recording: after the restart, one comment in the end', async () => {
  const first = await connect({ SERVICE_TEST_BUILD: '1', SERVICE_FAULT_KILL_AT: 'worker-posted' })
  const w = await runWorker(first.port, true)
  let failed = false
  try {
    await first.port.workerReport({ conversation: w.id, body: 'RULING needed: which API?', status: 'blocked' })
  } catch {
    failed = true
  }
  assert.ok(failed, 'the kernel died answering the report')
  await until(() => !alive(first.pid), 'the killed kernel gone')
  const posted = join(h.service, 'agents', `conv-${w.name}`, 'posted-1.json')
  assert.is(comments().length, 1, 'posted before the kill')
  assert.not.ok(existsSync(posted), 'not recorded before the kill')
  // The restarted kernel delivers what was not recorded: it finds the marker and posts nothing more.
  await connect()
  await until(() => existsSync(posted), 'the posting recorded after the restart')
  assert.is(comments().length, 1)
  assert.ok(comments()[0].endsWith(MARKER))
  assert.equal(JSON.parse(readFileSync(posted, 'utf8')).already, true)
})

test('a worker on a GitHub issue: its name, directory and branch; --post comments through gh, the issue left open', async () => {
  const state = join(h.home, 'gh.json')
  writeFileSync(
    state,
    JSON.stringify({
      loggedIn: true,
      repos: { 'acme/app': { '12': { title: 'Login fails', body: 'On GitHub.', state: 'OPEN' } } },
    } satisfies FakeGhState),
  )
  h.extraEnv = ghEnv(state)
  const { port } = await connect()
  const root = await port.convNew({ harness: 'none', project: 'sample' })
  const r = await port.workerRun({
    issue: 'gh:Acme/App#12',
    prompt: 'x',
    harness: 'none',
    post: true,
    conversation: root.id,
    project: 'sample',
  })
  const dir = join(h.home, 'src', 'sample-lanes', 'w-gh-acme+app-12')
  assert.is(r.line, `Worker gh:acme/app#12 i1: conv ${r.worker.id} (w-gh-4c53ef2b-12-i1) in ${dir}`)
  assert.is(r.worker.worker!.branch, 'worker/gh-acme+app-12')
  await port.workerReport({ conversation: r.worker.id, body: 'SPEND: needs a paid API key', status: 'blocked' })
  const issue = (JSON.parse(readFileSync(state, 'utf8')) as FakeGhState).repos['acme/app']['12']
  assert.equal(
    issue.comments!.map((c) => c.body),
    [
      `**Worker report** blocked (conv-w-gh-4c53ef2b-12-i1, report 1)\n\nSPEND: needs a paid API key\n\n<!-- ` +
        `svc-report conv-w-gh-4c53ef2b-12-i1 seq 1 -->`,
    ],
  )
  assert.is(issue.state, 'OPEN')
})

test.run()
