import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { LaneFacts } from '../../kernel/domain/conversation.js'
import { CONV_NAME, type Role } from '../../kernel/domain/keys.js'
import { dirClaimRefusal } from '../../kernel/domain/lane-claim.js'
import { mayLaunch } from '../../kernel/domain/launch.js'
import { checkReport } from '../../kernel/domain/report-rules.js'
import { allow, refuse } from '../../kernel/domain/refusal.js'
import {
  alreadyPosted,
  checkIssueState,
  isWorkerOf,
  mayRunWorker,
  starterMessage,
  workDirOf,
  workerConvName,
  planWorker,
  reportComment,
  reportMarker,
  workerBranch,
  workerDirName,
  workerOf,
  type WorkerRecord,
  type WorkerRow,
} from '../../kernel/domain/worker-rules.js'

const lane = (role: Role): LaneFacts => ({
  run: 'r1',
  key: `k-${role}`,
  role,
  dir: `r1-k-${role}`,
  root: '/lanes',
  iteration: 1,
})
const row = (id: string, extra: Partial<WorkerRecord> = {}): WorkerRecord => ({
  id,
  name: `n${id}`,
  createdAt: Number(id),
  harness: 'none',
  cwd: '/w',
  ...extra,
})
const worker = {
  issue: 'local:1',
  starter: '1',
  dir: 'w-local-1',
  root: '/lanes',
  branch: 'worker/local-1',
  iteration: 1,
}

/** 1 root, 2 its handoff; 3 orchestrator lane, 4 its fork; 5-8 builder, critic, verifier, play lanes, 9 handoff of
 *  the builder; 10 a worker, 11 its handoff; 12 a successor of a missing row. */
const rows = [
  row('1'),
  row('2', { parent: '1', successor: 'handoff' }),
  row('3', { parent: '1', lane: lane('orchestrator') }),
  row('4', { parent: '3', successor: 'fork' }),
  row('5', { parent: '3', lane: lane('builder') }),
  row('6', { parent: '1', lane: lane('critic') }),
  row('7', { parent: '3', lane: lane('verifier') }),
  row('8', { parent: '3', lane: lane('play') }),
  row('9', { parent: '5', successor: 'handoff' }),
  row('10', { parent: '1', worker }),
  row('11', { parent: '10', successor: 'handoff' }),
  row('12', { parent: '999', successor: 'handoff' }),
]
const byId = new Map(rows.map((r) => [r.id, r]))
const lookup = (id: string) => byId.get(id)

test('who may run a worker: a root or an orchestrator lane, through their successors; nothing else', () => {
  const ONLY = 'only a root conversation or an orchestrator lane can'
  const table: [string, string][] = [
    ['1', 'ok 1'],
    ['2', 'ok 1'],
    ['3', 'ok 3'],
    ['4', 'ok 3'],
    ['5', `forbidden refused: a builder lane cannot run workers; ${ONLY}`],
    ['6', `forbidden refused: a critic lane cannot run workers; ${ONLY}`],
    ['7', `forbidden refused: a verifier lane cannot run workers; ${ONLY}`],
    ['8', `forbidden refused: a play lane cannot run workers; ${ONLY}`],
    ['9', `forbidden refused: a builder lane cannot run workers; ${ONLY}`],
    ['10', `forbidden refused: a worker cannot run workers; ${ONLY}`],
    ['11', `forbidden refused: a worker cannot run workers; ${ONLY}`],
    ['12', 'forbidden conv 12 has a broken chain of parent links; it cannot run workers'],
  ]
  for (const [id, want] of table) {
    const d = mayRunWorker(id, lookup)
    assert.is(d.ok ? `ok ${d.starter.id}` : `${d.code} ${d.message}`, want, `conv ${id}`)
  }
})

test('a closed issue is refused unless --allow-closed', () => {
  assert.equal(checkIssueState('local:3', 'open', false), { ok: true })
  assert.equal(checkIssueState('local:3', 'closed', true), { ok: true })
  assert.equal(checkIssueState('gh:acme/app#3', 'closed', false), {
    ok: false,
    code: 'conflict',
    message: 'refused: issue gh:acme/app#3 is closed; pass --allow-closed to run a worker on it anyway',
  })
})

test('directory and branch per iteration, as for builders', () => {
  const table: [string, number, string, string][] = [
    ['local-7', 1, 'w-local-7', 'worker/local-7'],
    ['local-7', 2, 'w-local-7-i2', 'worker/local-7-i2'],
    ['gh-acme+app-12', 1, 'w-gh-acme+app-12', 'worker/gh-acme+app-12'],
    ['gh-acme+app-12', 10, 'w-gh-acme+app-12-i10', 'worker/gh-acme+app-12-i10'],
  ]
  for (const [slug, n, dir, branch] of table) {
    assert.is(workerDirName(slug, n), dir)
    assert.is(workerBranch(slug, n), branch)
  }
})

const w = (id: string, iteration: number, extra: Partial<WorkerRow> = {}): WorkerRow => ({
  id,
  createdAt: Number(id),
  live: false,
  doneReported: false,
  worker: { dir: workerDirName('local-7', iteration), branch: workerBranch('local-7', iteration), iteration },
  ...extra,
})

test('one live worker per issue; --replace, --reuse and new iterations', () => {
  type Case = [string, WorkerRow[], Parameters<typeof planWorker>[3], string]
  const show = (d: ReturnType<typeof planWorker>) =>
    d.ok
      ? `i${d.iteration} ${d.dirName} ${d.branch}${d.reuse ? ` reuse ${d.reuse.id}` : ''}` +
        `${d.replace ? ` replace ${d.replace.id}` : ''}`
      : `${d.code} ${d.message}`
  const table: Case[] = [
    ['first worker', [], {}, 'i1 w-local-7 worker/local-7'],
    ['after a stopped one', [w('1', 1)], {}, 'i2 w-local-7-i2 worker/local-7-i2'],
    [
      'a reuse respawn does not count as a new directory',
      [w('1', 1), w('2', 1)],
      {},
      'i2 w-local-7-i2 worker/local-7-i2',
    ],
    ['own branch name', [], { branch: 'fix/login' }, 'i1 w-local-7 fix/login'],
    [
      'a live one',
      [w('1', 1, { live: true })],
      {},
      'conflict worker local:7 i1 is live (conv 1); pass --replace to stop it and run anew',
    ],
    [
      '--replace stops it and starts the next iteration',
      [w('1', 1, { live: true })],
      { replace: true },
      'i2 w-local-7-i2 worker/local-7-i2 replace 1',
    ],
    [
      '--reuse continues in the latest directory',
      [w('1', 1), w('2', 2)],
      { reuse: true },
      'i2 w-local-7-i2 worker/local-7-i2 reuse 2',
    ],
    [
      '--reuse of a live one needs --replace',
      [w('1', 1, { live: true })],
      { reuse: true },
      'conflict worker local:7 i1 is live (conv 1); pass --replace to stop it and run anew',
    ],
    [
      '--reuse with --replace',
      [w('1', 1, { live: true })],
      { reuse: true, replace: true },
      'i1 w-local-7 worker/local-7 reuse 1 replace 1',
    ],
    ['--reuse with nothing earlier', [], { reuse: true }, 'conflict refused: no earlier worker of local:7 to reuse'],
    [
      '--reuse with --from',
      [w('1', 1)],
      { reuse: true, from: 'main' },
      'usage --from does not go with --reuse: the worker continues in w-local-7 as it is',
    ],
    [
      '--reuse with --branch',
      [w('1', 1)],
      { reuse: true, branch: 'x' },
      'usage --branch does not go with --reuse: the worker continues in w-local-7 as it is',
    ],
    [
      '--reuse of an iteration that reported done',
      [w('1', 1, { doneReported: true }), w('2', 1)],
      { reuse: true },
      'conflict refused: branch worker/local-7 of worker local:7 i1 is frozen (its worker reported done); run a new ' +
        'iteration',
    ],
    [
      'rows out of order are put in launch order',
      [w('5', 2), w('1', 1)],
      { reuse: true },
      'i2 w-local-7-i2 worker/local-7-i2 reuse 5',
    ],
  ]
  for (const [name, earlier, req, want] of table)
    assert.is(show(planWorker('local:7', 'local-7', earlier, req)), want, name)
})

test('a report comment: heading, body, and the marker on its last line', () => {
  const c = reportComment({ ref: 'local:7', conv: 'w-local-7-i1', seq: 3, status: 'done', body: 'All green.\n\n' })
  assert.is(
    c,
    '**Worker report** done (conv-w-local-7-i1, report 3)\n\nAll green.\n\n<!-- svc-report conv-w-local-7-i1 seq 3 -->',
  )
  assert.is(reportMarker('x', 1), '<!-- svc-report conv-x seq 1 -->')
})

test('a report too long for one comment is cut, says where the whole is, and keeps its marker', () => {
  const c = reportComment({ ref: 'local:7', conv: 'c', seq: 1, status: 'blocked', body: 'B'.repeat(500) }, 300)
  assert.is(c.length, 300)
  assert.ok(
    c.endsWith(
      "\n\n[cut: the whole report is in svc's report store under conv-c, report 1]\n\n<!-- svc-report conv-c seq 1 -->",
    ),
    c,
  )
  assert.ok(c.startsWith('**Worker report** blocked (conv-c, report 1)\n\nBBB'))
  const fits = 'B'.repeat(300 - 77)
  assert.is(
    reportComment({ ref: 'local:7', conv: 'c', seq: 1, status: 'done', body: fits }, 300),
    `**Worker report** done (conv-c, report 1)\n\n${fits}\n\n<!-- svc-report conv-c seq 1 -->`,
    'exactly the limit: nothing cut',
  )
})

test("already posted: only a comment whose last line is this report's marker counts", () => {
  const m = reportMarker('c', 2)
  const table: [string, string[], boolean][] = [
    ['no comments', [], false],
    ['the posted report', [reportComment({ ref: 'local:1', conv: 'c', seq: 2, status: 'done', body: 'x' })], true],
    ['trailing blank lines and spaces', [`text\n${m}  \n\n`], true],
    [
      'another report of the same conversation',
      [reportComment({ ref: 'local:1', conv: 'c', seq: 1, status: 'done', body: 'x' })],
      false,
    ],
    ['seq 2 is not seq 20', [`x\n${reportMarker('c', 20)}`], false],
    ['a comment quoting the marker mid-text', [`see ${m} above\nthanks`], false],
    ['the marker of another conversation', [`x\n${reportMarker('c2', 2)}`], false],
    ['among others', ['hello', `x\n${m}`, 'bye'], true],
  ]
  for (const [name, comments, want] of table) assert.is(alreadyPosted(m, comments), want, name)
})

test("a worker's conversation name: short, valid, one per issue and iteration", () => {
  const table: [Parameters<typeof workerConvName>[0], number, number, string][] = [
    [{ tracker: 'local', number: 7 }, 1, 0, 'w-local-7-i1'],
    [{ tracker: 'local', number: 7 }, 2, 0, 'w-local-7-i2'],
    [{ tracker: 'local', number: 7 }, 1, 1, 'w-local-7-i1-2'],
    [{ tracker: 'gh', owner: 'acme', repo: 'app', number: 12 }, 1, 0, 'w-gh-4c53ef2b-12-i1'],
    [{ tracker: 'gh', owner: 'acme', repo: 'app2', number: 12 }, 1, 0, 'w-gh-4121645b-12-i1'],
  ]
  // The tags are FNV-1a (32 bits) of owner/repo, worked out independently of this code.
  for (const [ref, i, attempt, want] of table) assert.is(workerConvName(ref, i, attempt), want)
  // The longest GitHub names still make a valid conversation name, with no '+' in it.
  const long = workerConvName(
    { tracker: 'gh', owner: 'o'.repeat(39), repo: 'r.'.repeat(50), number: 999_999_999 },
    99,
    9,
  )
  assert.ok(CONV_NAME.test(long), long)
  assert.not.ok(long.includes('+'))
})

test('a worker directory is a builder directory for the code that makes, reports from and reaps it', () => {
  const w = {
    issue: 'local:1',
    starter: '1',
    dir: 'w-local-1',
    root: '/lanes',
    iteration: 2,
    repo: '/src',
    branch: 'worker/local-1',
    made: { launch: 'x' },
  }
  assert.equal(workDirOf({ worker: w }), {
    role: 'builder',
    dir: 'w-local-1',
    root: '/lanes',
    iteration: 2,
    repo: '/src',
    branch: 'worker/local-1',
    made: { launch: 'x' },
  })
  assert.equal(workDirOf({ lane: lane('critic') }), lane('critic'))
  assert.is(workDirOf({}), undefined)
})

test("which workers are an issue's: a local reference is one project's, a GitHub one everyone's", () => {
  const w = (issue: string, project?: string) => ({ project, worker: { ...worker, issue } })
  const table: [ReturnType<typeof w> | { project?: string }, string, string | undefined, boolean][] = [
    [w('local:1', 'app'), 'local:1', 'app', true],
    [w('local:1', 'web'), 'local:1', 'app', false],
    [w('local:2', 'app'), 'local:1', 'app', false],
    [w('gh:acme/app#1', 'web'), 'gh:acme/app#1', 'app', true],
    [w('gh:acme/app#1', 'web'), 'gh:acme/app#1', undefined, true],
    [{ project: 'app' }, 'local:1', 'app', false],
  ]
  for (const [rec, issue, project, want] of table)
    assert.is(isWorkerOf(rec, issue, project), want, `${JSON.stringify(rec)} ${issue} ${project}`)
})

test('the message the starter is told: who, which issue, the status, the first line, the command', () => {
  const who = { id: '9', name: 'w-local-1-i1', issue: 'local:1', iteration: 1 }
  assert.is(
    starterMessage(who, { seq: 3, status: 'blocked', body: '\n  RULING needed: which API?\nmore' }),
    'Worker local:1 i1 (conv 9, w-local-1-i1) filed report #3: blocked: RULING needed: which API?\nRead it: svc ' +
      'worker wait w-local-1-i1 --after 2',
  )
  const long = starterMessage(who, { seq: 1, status: 'done', body: 'x'.repeat(300) })
  assert.ok(long.includes(`done: ${'x'.repeat(199)}…\n`), long)
})

test('a worker: the gates of a builder, no verdict; it launches no lanes; its directory is held until it is reaped', () => {
  const w = { role: 'worker' as const, key: 'local:1', iteration: 1, branch: 'worker/local-1' }
  const fails = (f: () => ReturnType<typeof checkReport>) => {
    const d = f()
    return d.ok ? 'ok' : d.message
  }
  const req = { status: 'done' as const, body: 'x' }
  const table: [string, () => ReturnType<typeof checkReport>, string][] = [
    [
      'dirty',
      () => checkReport(w, req, [], { dirty: true }),
      'refused: a worker reports done only from a clean tree; commit or remove the changes (git status shows them)',
    ],
    [
      'no upstream',
      () => checkReport(w, req, [], { dirty: false, branch: 'worker/local-1' }),
      'refused: branch worker/local-1 has no upstream; push it with git push -u origin HEAD',
    ],
    [
      'ahead',
      () => checkReport(w, req, [], { dirty: false, branch: 'b', upstream: 'origin/b', ahead: 2 }),
      'refused: 2 commit(s) on b are not on origin/b; push them first',
    ],
    [
      'frozen',
      () => checkReport(w, req, [{ seq: 1, at: 1, status: 'done', body: 'x' }], { dirty: false }),
      'refused: branch worker/local-1 is frozen: worker local:1 i1 reported done (report #1); start a new iteration',
    ],
    [
      'verdict',
      () => checkReport(w, { ...req, verdict: 'PASS' }, [], undefined),
      'refused: a worker files no verdict; --verdict is for critic and verifier lanes',
    ],
    ['pushed', () => checkReport(w, req, [], { dirty: false, branch: 'b', upstream: 'origin/b', ahead: 0 }), 'ok'],
  ]
  for (const [name, f, want] of table) assert.is(fails(f), want, name)
  assert.equal(mayLaunch({ worker }, 'builder'), {
    ok: false,
    code: 'forbidden',
    message: 'refused: a worker cannot launch lanes',
  })
  const held = row('5', { worker })
  assert.equal(dirClaimRefusal('/lanes/w-local-1', [held]), {
    ok: false,
    code: 'conflict',
    message:
      'refused: /lanes/w-local-1 is the directory of worker local:1 i1 (conv 5), which is not reaped; reap it first ' +
      '(svc worker reap 5)',
  })
  assert.equal(dirClaimRefusal('/lanes/w-local-1', [{ ...held, reaped: { at: 1 } }]), { ok: true })
})

test('workerOf: the worker verbs take a worker; a root, a lane or a successor is not_found, named', () => {
  const w = row('10', { worker })
  const CASES: [WorkerRecord, ReturnType<typeof workerOf>][] = [
    [w, allow({ rec: w as never })],
    [row('1'), refuse('not_found', 'conv 1 (n1) is not a worker')],
    [row('5', { lane: lane('builder') }), refuse('not_found', 'conv 5 (n5) is not a worker')],
    [row('2', { parent: '1', successor: 'handoff' }), refuse('not_found', 'conv 2 (n2) is not a worker')],
  ]
  for (const [rec, want] of CASES) assert.equal(workerOf(rec), want, rec.id)
})

test.run()
