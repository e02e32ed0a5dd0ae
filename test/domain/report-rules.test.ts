import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ConversationRecord, LaneFacts } from '../../kernel/domain/conversation.js'
import type { Role } from '../../kernel/domain/keys.js'
import {
  checkReport,
  parseVerdictFile,
  reportExitCode,
  reportingLane,
  reportingWorker,
  type ReportRequest,
  type TreeFacts,
} from '../../kernel/domain/report-rules.js'
import type { Report } from '../../kernel/domain/report.js'

/** The parser's own words for a text that is no JSON (the runtime's wording, not pinned here). */
const parseError = (text: string) => {
  try {
    JSON.parse(text)
  } catch (e) {
    return (e as Error).message
  }
  throw new Error(`${text} parsed`)
}

// SPEC.md 4.1 report rules 1-6 and section 3's frozen branch: one row per case, refusals with code and exact message.

const lane = (role: Role): LaneFacts => ({
  run: 'r1',
  key: 'k',
  role,
  dir: 'd',
  root: '/lanes',
  iteration: 2,
  branch: 'r1/k-i2',
})
const done = (extra: Partial<Report> = {}): Report => ({ seq: 3, at: 1, status: 'done', body: 'x', ...extra })
const CLEAN: TreeFacts = { dirty: false, head: 'h', branch: 'r1/k-i2', upstream: 'origin/r1/k-i2', ahead: 0 }
const refused = (code: string, message: string) => ({ ok: false, code, message })

type Row = [string, Role, Partial<ReportRequest>, Report[], TreeFacts | undefined, unknown]
const ROWS: Row[] = [
  ['empty body', 'builder', { body: '  \n' }, [], CLEAN, refused('usage', 'the report is empty')],
  // Rule 2: a builder's done report.
  ['rule 2: clean and pushed', 'builder', {}, [], CLEAN, { ok: true }],
  [
    'rule 2: dirty tree',
    'builder',
    {},
    [],
    { ...CLEAN, dirty: true },
    refused(
      'conflict',
      'refused: a builder reports done only from a clean tree; commit or remove the changes (git status shows them)',
    ),
  ],
  [
    'rule 2: --allow-unpushed never waives the clean tree',
    'builder',
    { allowUnpushed: true },
    [],
    { ...CLEAN, dirty: true },
    refused(
      'conflict',
      'refused: a builder reports done only from a clean tree; commit or remove the changes (git status shows them)',
    ),
  ],
  [
    'rule 2: no upstream',
    'builder',
    {},
    [],
    { ...CLEAN, upstream: undefined },
    refused('conflict', 'refused: branch r1/k-i2 has no upstream; push it with git push -u origin HEAD'),
  ],
  [
    'rule 2: detached, no upstream',
    'builder',
    {},
    [],
    { dirty: false },
    refused('conflict', 'refused: branch (detached) has no upstream; push it with git push -u origin HEAD'),
  ],
  [
    'rule 2: commits not pushed',
    'builder',
    {},
    [],
    { ...CLEAN, ahead: 2 },
    refused('conflict', 'refused: 2 commit(s) on r1/k-i2 are not on origin/r1/k-i2; push them first'),
  ],
  [
    'rule 2: --allow-unpushed waives the upstream',
    'builder',
    { allowUnpushed: true },
    [],
    { ...CLEAN, upstream: undefined },
    { ok: true },
  ],
  [
    'rule 2: a blocked report needs no clean tree',
    'builder',
    { status: 'blocked', body: 'BLOCKED on x' },
    [],
    { ...CLEAN, dirty: true },
    { ok: true },
  ],
  // Rule 3: blocked openers.
  ...['RULING', 'SPEND', 'ONE-WAY', 'BLOCKED'].map((w): Row => [
    `rule 3: ${w} opens a blocked report`,
    'builder',
    { status: 'blocked', body: `  ${w}: why` },
    [],
    CLEAN,
    { ok: true },
  ]),
  [
    'rule 3: another word',
    'builder',
    { status: 'blocked', body: 'Stuck' },
    [],
    CLEAN,
    refused('usage', 'refused: a blocked report must begin with one of the words RULING, SPEND, ONE-WAY, BLOCKED'),
  ],
  [
    'rule 3: a longer word is not the opener',
    'builder',
    { status: 'blocked', body: 'BLOCKEDX' },
    [],
    CLEAN,
    refused('usage', 'refused: a blocked report must begin with one of the words RULING, SPEND, ONE-WAY, BLOCKED'),
  ],
  // Rule 4: a failed report means the brief cannot be done; it needs nothing more.
  ['rule 4: failed', 'builder', { status: 'failed' }, [], { ...CLEAN, dirty: true }, { ok: true }],
  // Rule 5: one verdict, with the done report.
  [
    'rule 5: critic done with verdict',
    'critic',
    { verdict: 'NOT_YET' },
    [],
    undefined,
    { ok: true, verdict: 'NOT_YET', defects: 0 },
  ],
  [
    'rule 5: verifier done with verdict and count',
    'verifier',
    { verdict: 'DEFECTS', defects: 3 },
    [],
    undefined,
    { ok: true, verdict: 'DEFECTS', defects: 3 },
  ],
  [
    'rule 5: done without verdict (critic)',
    'critic',
    {},
    [],
    undefined,
    refused('usage', "refused: a critic's done report needs its verdict: --verdict WOWED|IMPRESSED|NOT_YET"),
  ],
  [
    'rule 5: done without verdict (verifier)',
    'verifier',
    {},
    [],
    undefined,
    refused('usage', "refused: a verifier's done report needs its verdict: --verdict PASS|DEFECTS"),
  ],
  [
    'rule 5: --verdict from a builder',
    'builder',
    { verdict: 'PASS' },
    [],
    CLEAN,
    refused('forbidden', 'refused: a builder files no verdict; --verdict is for critic and verifier lanes'),
  ],
  [
    'rule 5: --verdict from a play lane',
    'play',
    { verdict: 'PASS' },
    [],
    undefined,
    refused('forbidden', 'refused: a play files no verdict; --verdict is for critic and verifier lanes'),
  ],
  [
    'rule 5: --verdict on a blocked report',
    'critic',
    { verdict: 'NOT_YET', status: 'blocked', body: 'BLOCKED x' },
    [],
    undefined,
    refused('usage', 'refused: a verdict goes with a done report, not a blocked one'),
  ],
  [
    'rule 5: a second done report',
    'critic',
    { verdict: 'WOWED' },
    [done()],
    undefined,
    refused('conflict', 'refused: this critic has already filed its done report with its verdict'),
  ],
  [
    'rule 5: --verdict on a failed report',
    'verifier',
    { verdict: 'PASS', status: 'failed' },
    [],
    undefined,
    refused('usage', 'refused: a verdict goes with a done report, not a failed one'),
  ],
  [
    'rule 5: a second done report from a verifier',
    'verifier',
    { verdict: 'PASS' },
    [done()],
    undefined,
    refused('conflict', 'refused: this verifier has already filed its done report with its verdict'),
  ],
  [
    'rule 5: a critic is never frozen by its own done report',
    'critic',
    { status: 'failed' },
    [done()],
    undefined,
    { ok: true },
  ],
  [
    'rule 5: a blocked report after the verdict',
    'critic',
    { status: 'blocked', body: 'BLOCKED x' },
    [done()],
    undefined,
    { ok: true },
  ],
  [
    'verdict value unknown',
    'critic',
    { verdict: 'GREAT' },
    [],
    undefined,
    refused('usage', "--verdict must be one of WOWED, IMPRESSED, NOT_YET, PASS, DEFECTS, not 'GREAT'"),
  ],
  [
    '--defects without --verdict',
    'critic',
    { status: 'failed', defects: 1 },
    [],
    undefined,
    refused('usage', '--defects and --verdict-file go with --verdict'),
  ],
  [
    '--defects not whole',
    'critic',
    { verdict: 'DEFECTS', defects: 1.5 },
    [],
    undefined,
    refused('usage', '--defects must be a whole number, 0 or more'),
  ],
  [
    '--defects negative',
    'critic',
    { verdict: 'DEFECTS', defects: -1 },
    [],
    undefined,
    refused('usage', '--defects must be a whole number, 0 or more'),
  ],
  [
    'defect count from the verdict file',
    'critic',
    { verdict: 'DEFECTS', verdictText: '{"defects":[1,2]}' },
    [],
    undefined,
    { ok: true, verdict: 'DEFECTS', defects: 2 },
  ],
  [
    '--defects wins over the file',
    'critic',
    { verdict: 'DEFECTS', defects: 5, verdictText: '{"defects":[1,2]}' },
    [],
    undefined,
    { ok: true, verdict: 'DEFECTS', defects: 5 },
  ],
  [
    'verdict file not JSON, even with --defects',
    'critic',
    { verdict: 'DEFECTS', defects: 5, verdictText: 'nope' },
    [],
    undefined,
    refused('usage', `verdict file v.json is not JSON: ${parseError('nope')}`),
  ],
  [
    'verdict file without defects',
    'critic',
    { verdict: 'PASS', verdictText: '{"d":[]}' },
    [],
    undefined,
    refused('usage', 'verdict file v.json has no array named defects'),
  ],
  // SPEC.md 3: a frozen branch.
  [
    'frozen: a blocked report of an iteration that reported done',
    'builder',
    { status: 'blocked', body: 'SPEND more' },
    [done()],
    CLEAN,
    refused(
      'conflict',
      'refused: branch r1/k-i2 is frozen: builder k i2 reported done (report #3); start a new iteration',
    ),
  ],
  [
    'frozen: after the iteration reported done',
    'builder',
    { status: 'failed' },
    [done({ branch: 'r1/k-i2' })],
    CLEAN,
    refused(
      'conflict',
      'refused: branch r1/k-i2 is frozen: builder k i2 reported done (report #3); start a new iteration',
    ),
  ],
]

test('checkReport: every row of SPEC.md 4.1 report rules 2-5 and the frozen branch', () => {
  for (const [name, role, req, earlier, tree, want] of ROWS)
    assert.equal(
      checkReport(lane(role), { status: 'done', body: 'the work', ...req }, earlier, tree, 'v.json'),
      want,
      name,
    )
})

test('reportingLane (report rule 6): a lane reports; a root, a successor of a lane or nobody is not inside a lane', () => {
  const rec = (extra: Partial<ConversationRecord>): ConversationRecord => ({
    id: '7',
    name: 'n7',
    createdAt: 1,
    harness: 'claude',
    cwd: '/w',
    ...extra,
  })
  const notInside = refused('not_inside_lane', 'not inside a lane')
  const laneRec = rec({ lane: lane('builder') })
  assert.equal(reportingLane(laneRec), { ok: true, rec: laneRec })
  assert.equal(reportingLane(rec({})), notInside, 'a root')
  assert.equal(
    reportingLane(rec({ parent: '6', successor: 'handoff' } as Partial<ConversationRecord>)),
    notInside,
    'a successor of a lane',
  )
  assert.equal(reportingLane(undefined), notInside, 'no conversation')
})

test('parseVerdictFile: the defects array, or a refusal', () => {
  assert.equal(parseVerdictFile('{"defects":[]}', 'p'), { ok: true, defects: [] })
  assert.equal(parseVerdictFile('[]', 'p'), refused('usage', 'verdict file p has no array named defects'))
})

test('reportExitCode (SPEC.md 4.1 exit codes): 0 for done, 4 for blocked or failed', () => {
  assert.equal([reportExitCode('done'), reportExitCode('blocked'), reportExitCode('failed')], [0, 4, 4])
})

test('reportingWorker: the same rule for svc worker report; a lane is not a worker', () => {
  const rec = (extra: Partial<ConversationRecord>): ConversationRecord => ({
    id: '7',
    name: 'n7',
    createdAt: 1,
    harness: 'claude',
    cwd: '/w',
    ...extra,
  })
  const worker = rec({ worker: { issue: 'local:3', iteration: 1 } } as Partial<ConversationRecord>)
  assert.equal(reportingWorker(worker), { ok: true, rec: worker })
  assert.equal(
    reportingWorker(rec({ lane: lane('builder') })),
    refused('not_inside_lane', 'not inside a worker'),
    'a lane',
  )
  assert.equal(reportingWorker(undefined), refused('not_inside_lane', 'not inside a worker'), 'no conversation')
})

test.run()
