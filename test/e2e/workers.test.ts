import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runDemoWorker } from '../../cli/demo/worker.js'
import { TestHome, git, until, written } from '../helpers/home.js'
import { buildAndReport, setupProject, type Setup } from '../helpers/project.js'

/** `svc worker run|report|wait|list|show|stop|reap` against a real kernel, real git and shell harnesses: exact
 * stdout, stderr and exit codes. The person's calls run the CLI's dispatch in this process (the first run is the built
 * program); what the workers and their starters run is the built program. */

let h: TestHome
let s: Setup
test.before.each(async () => {
  h = new TestHome('workers')
  h.inProcess = true
  s = await setupProject(h)
})
test.after.each(async () => {
  await h.stop()
})

const issue = async (title: string) =>
  (await h.ok(['issue', 'new', '--project', s.project.key, '--title', title])).trim().split('\n').at(-1)!
const read = (f: string) => readFileSync(join(h.home, f), 'utf8')
const reportsOf = (name: string) => h.reports(name)
const idOf = (line: string) => /conv (\d+) /.exec(line)![1]

test('run: the line, the worktree and branch, the facts written once, the brief and the issue snapshot', async () => {
  const ref = await issue('Fix the login')
  assert.is(ref, 'local:1')
  const out = await h.ok(['worker', 'run', ref, '--harness', 'none', '--prompt', 'do it'], { env: s.env, here: false })
  const id = idOf(out)
  const dir = join(s.lanesRoot, 'w-local-1')
  assert.is(out, `Worker local:1 i1: conv ${id} (w-local-1-i1) in ${dir}\n`)
  assert.is(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'worker/local-1')
  const convDir = join(h.service, 'agents', 'conv-w-local-1-i1')
  const rec = JSON.parse(readFileSync(join(convDir, 'record.json'), 'utf8'))
  assert.equal(
    [rec.parent, rec.worker.issue, rec.worker.starter, rec.worker.iteration, rec.worker.branch],
    [s.root, 'local:1', s.root, 1, 'worker/local-1'],
  )
  assert.is(readFileSync(join(convDir, 'worker-brief.md'), 'utf8'), 'do it')
  const snap = JSON.parse(readFileSync(join(convDir, 'issue.json'), 'utf8'))
  assert.equal([snap.ref, snap.title, snap.state], ['local:1', 'Fix the login', 'open'])
  assert.match(snap.sha256, /^[0-9a-f]{64}$/)
  const shown = JSON.parse(await h.ok(['conv', 'show', id, '--json']))
  assert.is(shown.kind, 'worker')
})

test('refusals: one live worker per issue, a closed issue, an unknown issue, a builder lane, report outside a worker', async () => {
  const ref = await issue('One')
  const out = await h.ok(
    ['worker', 'run', ref, '--harness', 'shell', '--prompt', `while [ ! -e ${h.home}/go ]; do sleep 0.05; done`],
    { env: s.env },
  )
  const live = await h.svc(['worker', 'run', ref, '--harness', 'none', '--prompt', 'x'], { env: s.env })
  assert.equal(
    [live.code, live.stderr],
    [1, `svc: worker local:1 i1 is live (conv ${idOf(out)}); pass --replace to stop it and run anew\n`],
  )
  const replaced = await h.ok(['worker', 'run', ref, '--replace', '--harness', 'none', '--prompt', 'x'], { env: s.env })
  assert.match(replaced, /^Worker local:1 i2: conv \d+ \(w-local-1-i2\) in .*\/w-local-1-i2\n$/)
  const two = await issue('Two')
  await h.ok(['issue', 'close', two, '--project', s.project.key])
  const closed = await h.svc(['worker', 'run', two, '--harness', 'none', '--prompt', 'x'], { env: s.env })
  assert.equal(
    [closed.code, closed.stderr],
    [1, 'svc: refused: issue local:2 is closed; pass --allow-closed to run a worker on it anyway\n'],
  )
  assert.match(
    await h.ok(['worker', 'run', two, '--allow-closed', '--harness', 'none', '--prompt', 'x'], { env: s.env }),
    /^Worker local:2 i1: /,
  )
  const unknown = await h.svc(['worker', 'run', 'local:9', '--harness', 'none', '--prompt', 'x'], { env: s.env })
  assert.equal(
    [unknown.code, unknown.stderr],
    [1, 'svc: no issue local:9 in project sample\nhint: svc issue list shows the issues\n'],
  )
  const three = await issue('Three')
  await h.ok(
    [
      'lane',
      'start',
      '--run',
      'r1',
      '--key',
      'b',
      '--role',
      'builder',
      '--prompt',
      `svc worker run ${three} --harness none --prompt x 2> ${h.home}/e1 || echo $? > ${h.home}/c1`,
    ],
    { env: s.env },
  )
  await written(join(h.home, 'c1'), 'builder script end')
  assert.equal(
    [read('c1').trim(), read('e1')],
    ['1', 'svc: refused: a builder lane cannot run workers; only a root conversation or an orchestrator lane can\n'],
  )
  const outside = await h.svc(['worker', 'report', '--stdin'], { input: 'x', env: s.env })
  assert.equal([outside.code, outside.stderr], [1, 'svc: not inside a worker\n'])
  writeFileSync(join(h.home, 'go'), '')
})

test('report with the builder gates; the starter is told through its harness; wait by worker, issue and parent', async () => {
  const ref = await issue('Build it')
  writeFileSync(
    join(h.home, 'brief.sh'),
    [
      `svc worker report --stdin --status blocked <<<'not a word' 2> ${h.home}/e1 || echo $? > ${h.home}/c1`,
      'echo dirty > d.txt',
      `svc worker report --stdin <<<'dirty' 2> ${h.home}/e2 || echo $? > ${h.home}/c2`,
      'rm d.txt',
      buildAndReport('All done\nsecond line', 'work.txt', 'worker'),
      `svc worker report --stdin --status blocked <<<'BLOCKED after done' 2> ${h.home}/e3 || echo $? > ${h.home}/c3`,
    ].join('\n'),
  )
  // The starter: a shell conversation that runs the worker, then waits to be told.
  const starterScript = [
    `svc worker run ${ref} --harness shell --brief ${h.home}/brief.sh > ${h.home}/run.out`,
    'while ! grep -q "filed report" "$SERVICE_INBOX" 2>/dev/null; do sleep 0.05; done',
    `cp "$SERVICE_INBOX" ${h.home}/told.txt`,
  ].join('\n')
  const starter = (
    await h.ok(['conv', 'new', '--project', s.project.key, '--harness', 'shell', '--prompt', starterScript])
  ).trim()
  // `echo $? > c3` and `cp` make their file before they write it: wait for the lines, not the files.
  await written(join(h.home, 'told.txt'), 'the starter told', 20_000)
  await written(join(h.home, 'c3'), 'the third report refused', 20_000)
  const id = idOf(read('run.out'))
  assert.equal(
    [read('c1').trim(), read('e1')],
    ['1', 'svc: refused: a blocked report must begin with one of the words RULING, SPEND, ONE-WAY, BLOCKED\n'],
  )
  assert.equal(
    [read('c2').trim(), read('e2')],
    [
      '1',
      'svc: refused: a worker reports done only from a clean tree; commit or remove the changes (git status shows ' +
        'them)\n',
    ],
  )
  assert.equal(
    [read('c3').trim(), read('e3')],
    [
      '1',
      'svc: refused: branch worker/local-1 is frozen: worker local:1 i1 reported done (report #1); start a new ' +
        'iteration\n',
    ],
  )
  assert.is(
    read('told.txt'),
    `Worker local:1 i1 (conv ${id}, w-local-1-i1) filed report #1: done: All done\nRead it: svc worker wait ` +
      `w-local-1-i1 --after 0\n`,
  )
  const [report] = reportsOf('w-local-1-i1')
  assert.equal([report.status, report.branch, report.body], ['done', 'worker/local-1', 'All done\nsecond line\n'])
  const told = JSON.parse(readFileSync(join(h.service, 'agents', 'conv-w-local-1-i1', 'told-1.json'), 'utf8'))
  assert.equal([told.told, told.starter], [true, starter])

  const one = await h.svc(['worker', 'wait', 'w-local-1-i1'])
  assert.equal(
    [one.code, one.stdout, one.stderr],
    [
      0,
      'All done\nsecond line\n',
      `report #1 done from worker local:1 i1 (conv ${id})\nnext: svc worker wait w-local-1-i1 --after 1\n`,
    ],
  )
  const byIssue = await h.svc(['worker', 'wait', '--issue', ref, '--project', s.project.key])
  const cursor = `${report.at}.w-local-1-i1.1`
  assert.equal(
    [byIssue.code, byIssue.stderr],
    [
      0,
      `report #1 done from worker local:1 i1 (conv ${id})\nnext: svc worker wait --issue local:1 --after ${cursor}\n`,
    ],
  )
  const byParent = await h.svc(['worker', 'wait', '--parent', starter])
  assert.equal([byParent.code, byParent.stdout], [0, 'All done\nsecond line\n'])
  // After the only report, the worker has exited: exit 2, as lane wait.
  const after = await h.svc(['worker', 'wait', '--issue', ref, '--project', s.project.key, '--after', cursor])
  assert.is(after.code, 2)
  assert.is(after.stderr.split('\n').at(-2), `next: svc worker wait --issue local:1 --after ${cursor}`)

  const list = await h.ok(['worker', 'list', '--issue', ref, '--project', s.project.key, '--json'])
  const [row] = JSON.parse(list)
  assert.equal([row.id, row.issue, row.starter, row.report.status], [id, 'local:1', starter, 'done'])
  assert.equal(
    JSON.parse(await h.ok(['worker', 'list', '--parent', starter, '--json'])).map((r: { id: string }) => r.id),
    [id],
  )
  assert.is(JSON.parse(await h.ok(['worker', 'show', 'w-local-1-i1', '--json'])).report.seq, 1)
  // A worker acts only with its key: a report in its name from outside it is refused.
  const forged = await h.svc(['worker', 'report', '--stdin', '--status', 'failed'], {
    input: 'forged',
    env: { SERVICE_CONVERSATION: id },
  })
  assert.equal(
    [forged.code, forged.stderr],
    [
      1,
      `svc: refused: svc worker report: conv ${id} acts only with its key, and none was given\nhint: run this ` +
        `inside conv ${id}, where SERVICE_CONVERSATION_KEY is set\n`,
    ],
  )
  assert.is(reportsOf('w-local-1-i1').length, 1)

  // The deck's data: the worker nests under the conversation that ran it, with its issue and newest report.
  const k = h.kernelFile()!
  const tree = (await (
    await fetch(`http://127.0.0.1:${k.port}/api/tree`, { headers: { authorization: `Bearer ${k.token}` } })
  ).json()) as {
    roots: { id: string; children: { id: string }[] }[]
    conversations: Record<string, { kind: string }>
    workers: Record<string, { issue: string; url?: string; report?: { status: string } }>
  }
  assert.equal(
    tree.roots.find((r) => r.id === starter)!.children.map((c) => c.id),
    [id],
  )
  assert.is(tree.conversations[id].kind, 'worker')
  assert.equal([tree.workers[id].issue, tree.workers[id].report?.status], ['local:1', 'done'])
  assert.match(tree.workers[id].url!, /^file:\/\/.*\/issues\/sample\/1\.md$/)
})

test('an orchestrator lane runs a worker and is its starter; --reuse after a done report is refused, a new iteration is not', async () => {
  const ref = await issue('From a lane')
  const script =
    `svc worker run ${ref} --harness shell --prompt "` +
    `${buildAndReport('done', 'o.txt', 'worker').replace(/"/g, '\\"').replace(/\$/g, '\\$')}" > ${h.home}/run.out; ` +
    `echo ok > ${h.home}/ran`
  const out = await h.ok(['lane', 'start', '--run', 'r1', '--key', 'o', '--role', 'orchestrator', '--prompt', script], {
    env: s.env,
  })
  const orch = idOf(out)
  await written(join(h.home, 'ran'), 'the orchestrator ran its worker')
  const id = idOf(read('run.out'))
  await until(() => existsSync(join(h.service, 'agents', 'conv-w-local-1-i1', 'told-1.json')), 'the worker reported')
  // A worker that is still live is refused as live: the frozen branch is what this proves, once its lane has ended.
  const state = join(h.service, 'agents', 'conv-w-local-1-i1', 'state.json')
  await until(() => existsSync(state) && JSON.parse(readFileSync(state, 'utf8')).ended, 'the worker ended')
  const rec = JSON.parse(readFileSync(join(h.service, 'agents', 'conv-w-local-1-i1', 'record.json'), 'utf8'))
  assert.equal([rec.id, rec.parent, rec.worker.starter], [id, orch, orch])
  const reuse = await h.svc(['worker', 'run', ref, '--reuse', '--harness', 'none', '--prompt', 'x'], { env: s.env })
  assert.equal(
    [reuse.code, reuse.stderr],
    [
      1,
      'svc: refused: branch worker/local-1 of worker local:1 i1 is frozen (its worker reported done); run a new ' +
        'iteration\n',
    ],
  )
  assert.match(
    await h.ok(['worker', 'run', ref, '--harness', 'none', '--prompt', 'x'], { env: s.env }),
    /^Worker local:1 i2: conv \d+ \(w-local-1-i2\) in .*\/w-local-1-i2\n$/,
  )
})

test('a starter with no harness is not told; that is recorded once', async () => {
  const ref = await issue('Quiet')
  await h.ok(['worker', 'run', ref, '--harness', 'shell', '--prompt', buildAndReport('done', 'w.txt', 'worker')], {
    env: s.env,
  })
  const told = join(h.service, 'agents', 'conv-w-local-1-i1', 'told-1.json')
  await until(() => existsSync(told), 'the telling recorded')
  const t = JSON.parse(readFileSync(told, 'utf8'))
  assert.equal([t.told, t.why], [false, 'the starter is driven by no harness'])
})

test('reap --park: uncommitted work parked, the directory removed, the branch kept, archived', async () => {
  const ref = await issue('Park me')
  await h.ok(
    ['worker', 'run', ref, '--harness', 'shell', '--prompt', `echo wip > wip.txt; echo done > ${h.home}/done`],
    { env: s.env },
  )
  await written(join(h.home, 'done'), 'script end')
  const dir = join(s.lanesRoot, 'w-local-1')
  await until(
    async () => JSON.parse(await h.ok(['worker', 'show', 'w-local-1-i1', '--json'])).activity === 'stopped',
    'stopped',
  )
  const refused = await h.svc(['worker', 'reap', 'w-local-1-i1'])
  assert.is(refused.code, 1)
  assert.ok(existsSync(join(dir, 'wip.txt')))
  const r = await h.svc(['worker', 'reap', 'w-local-1-i1', '--park'])
  assert.is(r.code, 0, r.stderr)
  const lines = r.stdout.split('\n')
  assert.match(lines[0], /^parked 1 path to .*\/conv-w-local-1-i1\/parked-.*\.patch \(kept at refs\/svc\/parked\//)
  const id = JSON.parse(await h.ok(['worker', 'show', 'w-local-1-i1', '--json'])).id
  assert.is(lines[1], `reaped worker local:1 i1 (conv ${id}): removed ${dir}; branch worker/local-1 kept`)
  assert.not.ok(existsSync(dir))
  assert.ok(git(s.project.checkout, 'branch', '--list', 'worker/local-1').includes('worker/local-1'))
  assert.ok(JSON.parse(await h.ok(['worker', 'show', 'w-local-1-i1', '--json'])).archived)
  const again = await h.svc(['worker', 'reap', 'w-local-1-i1'])
  assert.equal(
    [again.code, again.stderr],
    [1, `svc: refused: conv ${id} (w-local-1-i1) is already reaped and archived\n`],
  )
})

test("npm start's demonstration worker: a local issue opened, a worker run on it to a done report, waited on by issue, reaped", async () => {
  const said: string[] = []
  const svcEnv = h.env()
  const { issue } = await runDemoWorker({
    env: svcEnv,
    project: s.project.key,
    pace: 0.01,
    say: (l) => said.push(l),
  })
  assert.is(issue, 'local:1')
  assert.match(said[1], /^Worker local:1 i1: conv \d+ \(w-local-1-i1\) in /)
  assert.is(
    said[2],
    'report of the worker on local:1: changelog for local:1: wrote CHANGELOG.md (3 lines), committed and pushed.',
  )
  assert.match(said[3], /^reaped worker local:1 i1 \(conv \d+\): removed .*\/w-local-1; branch worker\/local-1 kept$/)
  assert.is(reportsOf('w-local-1-i1')[0].status, 'done')
  assert.ok(git(s.project.checkout, 'ls-remote', 'origin', 'worker/local-1').includes('refs/heads/worker/local-1'))
})

test.run()
