import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { codeRedeemable, sessionLive } from '../../kernel/domain/deck-credentials.js'
import { age, clockTime, costText, usdText } from '../../kernel/domain/format.js'
import { askText, needsYouAsk } from '../../kernel/domain/needs-you-ask.js'
import { runCounts, type CountedLane } from '../../kernel/domain/run-counts.js'
import { tellHasText, tellRefusal, type TellTarget } from '../../kernel/domain/tell-refusal.js'
import { ALLOWED, refuse, type Decision } from '../../kernel/domain/refusal.js'
import { verdictDefects } from '../../kernel/domain/verdict-defects.js'

// The deck's pure decisions: the one formatter of time and money, counts per run, what a needs-you conversation
// asks, why the composer is disabled, the defects of a verdict file.

const NOW = 1_700_000_000_000
const AGES: [number, string][] = [
  [0, '0s'],
  [59_400, '59s'],
  [60_000, '1m'],
  [3_599_000, '59m'],
  [3_600_000, '1h'],
  [86_399_000, '23h'],
  [86_400_000, '1d'],
  [-5_000, '0s'],
]
test('age: the largest whole unit, at the given now (a time ahead reads 0s)', () => {
  for (const [ago, want] of AGES) assert.is(age(NOW - ago, NOW), want, `${ago} ms`)
})

test('costText, usdText, clockTime: one formatter of money and time for the CLI and the deck', () => {
  const CASES: [string, string][] = [
    [costText({ usd: 0.0213, estimated: false }), '$0.02'],
    [costText({ usd: 1.235, estimated: true }), '~$1.24'],
    [usdText(0), '$0.00'],
    [usdText(0.0035), '$0.0035'],
    [costText({ usd: 0.0035, estimated: true }), '~$0.0035'],
    [usdText(0.00012345), '$0.00012'],
    [usdText(0.003), '$0.003'],
    [usdText(0.009949), '$0.0099'],
    [usdText(0.00996), '$0.01'],
    [usdText(1e-9), '<$0.00000001'],
    [usdText(12.5), '$12.50'],
    [clockTime(Date.UTC(2026, 0, 2, 3, 4, 5)), '03:04:05'],
  ]
  for (const [got, want] of CASES) assert.is(got, want)
})

const lane = (over: Partial<CountedLane>): CountedLane => ({
  id: '1',
  run: 'r1',
  activity: 'working',
  archived: false,
  ...over,
})
test('runCounts: each lane once by activity (host-lost its own; archived and the rest as other), plus reported, stale for a judge whose own verdict went stale, and failed unless archived', () => {
  const CASES: [string, CountedLane[], Record<string, Record<string, number>>][] = [
    ['none', [], {}],
    [
      'one working',
      [lane({})],
      { r1: { working: 1, 'needs-you': 0, idle: 0, 'host-lost': 0, other: 0, reported: 0, stale: 0, failed: 0 } },
    ],
    [
      'every bucket',
      [
        lane({ activity: 'needs-you' }),
        lane({ activity: 'idle', report: { status: 'done' } }),
        lane({ id: '4', activity: 'stopped', report: { status: 'done' }, verdict: { stale: true, by: '4' } }),
        lane({ id: '3', activity: 'stopped', verdict: { stale: true, by: '4' } }),
        lane({ activity: 'starting' }),
        lane({ activity: 'idle', archived: true }),
        lane({ run: 'r2', activity: 'idle', verdict: { stale: false, by: '1' } }),
        lane({ activity: 'stopped', failed: { source: 'process exit' } }),
        lane({ activity: 'failed-to-start', failed: { source: 'spawn' } }),
        lane({ activity: 'stopped', archived: true, failed: { source: 'process exit' } }),
        lane({ activity: 'host-lost', report: { status: 'blocked' } }),
        lane({ activity: 'host-lost', archived: true }),
      ],
      {
        r1: { working: 0, 'needs-you': 1, idle: 1, 'host-lost': 1, other: 8, reported: 3, stale: 1, failed: 2 },
        r2: { working: 0, 'needs-you': 0, idle: 1, 'host-lost': 0, other: 0, reported: 0, stale: 0, failed: 0 },
      },
    ],
  ]
  for (const [name, lanes, want] of CASES) assert.equal(runCounts(lanes), want, name)
})

test('needsYouAsk: the question with its options, the permission with its tool and input, the plan, a self-mark', () => {
  const CASES: [string, Parameters<typeof needsYouAsk>, ReturnType<typeof needsYouAsk>, string][] = [
    [
      'self-marked',
      [undefined, 'question'],
      { kind: 'mark', reason: 'question' },
      'it marked itself needs-you (question): answer with a message',
    ],
    [
      'question',
      [
        {
          kind: 'question',
          tool: 'AskUserQuestion',
          input: {
            questions: [
              {
                question: 'Which database?',
                header: 'DB',
                options: [{ label: 'Postgres', description: 'relational' }, 'SQLite'],
              },
            ],
          },
        },
      ],
      {
        kind: 'question',
        tool: 'AskUserQuestion',
        questions: [
          {
            question: 'Which database?',
            header: 'DB',
            options: [{ label: 'Postgres', description: 'relational' }, { label: 'SQLite' }],
          },
        ],
      },
      'question for AskUserQuestion: Which database?',
    ],
    [
      'permission with a command',
      [{ kind: 'permission', tool: 'Bash', input: { command: 'rm -rf build' } }],
      { kind: 'permission', tool: 'Bash', input: 'rm -rf build' },
      'permission for Bash: rm -rf build',
    ],
    [
      'codex: a command outside its sandbox',
      [
        {
          kind: 'permission',
          tool: 'command',
          input: { rpcId: 0, command: 'npm install', cwd: '/lanes/r1-b', reason: 'needs the network' },
        },
      ],
      { kind: 'permission', tool: 'command', input: 'npm install' },
      'permission for command: npm install',
    ],
    [
      'codex: a file change outside its sandbox',
      [{ kind: 'permission', tool: 'file change', input: { rpcId: 'f1', path: '/etc', reason: 'write /etc/x' } }],
      { kind: 'permission', tool: 'file change', input: '/etc' },
      'permission for file change: /etc',
    ],
    [
      'permission with other input',
      [{ kind: 'permission', tool: 'Fetch', input: { n: 1 } }],
      { kind: 'permission', tool: 'Fetch', input: '{"n":1}' },
      'permission for Fetch: {"n":1}',
    ],
    [
      'permission, input not an object',
      [{ kind: 'permission', input: 'x' }],
      { kind: 'permission', tool: 'a tool', input: '' },
      'permission for a tool',
    ],
    [
      'plan',
      [{ kind: 'plan', tool: 'ExitPlanMode', input: { plan: '1. Add storage' } }],
      { kind: 'plan', tool: 'ExitPlanMode', plan: '1. Add storage' },
      'plan for ExitPlanMode: 1. Add storage',
    ],
  ]
  for (const [name, args, want, line] of CASES) {
    assert.equal(needsYouAsk(...args), want, name)
    assert.is(askText(needsYouAsk(...args)), line, name)
  }
})

const target = (over: Partial<TellTarget>): TellTarget => ({
  id: '7',
  name: 'r1-c-critic-i1',
  harness: 'shell',
  activity: 'idle',
  ...over,
})
const critic = { run: 'r1', key: 'c', role: 'critic' as const, dir: 'r1-c-critic-i1', root: '/l', iteration: 1 }
const DONE = [{ status: 'done' as const }]
test('tellRefusal: the one rule behind svc tell and the disabled composer', () => {
  const CASES: [string, TellTarget, { status: 'done' | 'blocked' | 'failed' }[], boolean, string | undefined][] = [
    ['a live lane takes messages', target({}), [], false, undefined],
    [
      'no harness',
      target({ harness: 'none' }),
      [],
      false,
      'conv 7 (r1-c-critic-i1) is driven by no harness; nothing would read the message',
    ],
    [
      'stopped (archived reads stopped)',
      target({ activity: 'stopped' }),
      [],
      false,
      'conv 7 (r1-c-critic-i1) is stopped; the message would not reach it',
    ],
    [
      'failed to start',
      target({ activity: 'failed-to-start' }),
      [],
      false,
      'conv 7 (r1-c-critic-i1) is failed-to-start; the message would not reach it',
    ],
    ['a critic before its done report', target({ lane: critic }), [{ status: 'blocked' }], false, undefined],
    [
      'a critic that filed its done report',
      target({ lane: critic }),
      DONE,
      false,
      'conv 7 (r1-c-critic-i1) is a critic that has filed its done report; it takes no further messages',
    ],
    ['forced', target({ lane: critic }), DONE, true, undefined],
  ]
  for (const [name, t, reports, force, want] of CASES) {
    const d = tellRefusal(t, reports, force)
    assert.is(d.ok ? undefined : d.message, want, name)
    if (!d.ok) assert.is(d.code, 'conflict', name)
  }
})

test('verdictDefects: one line per defect, whatever shape the file gives it; a broken file says why', () => {
  const CASES: [string, string, ReturnType<typeof verdictDefects>][] = [
    ['strings', '{"defects":["splits on commas only","no test"]}', { defects: ['splits on commas only', 'no test'] }],
    [
      'objects',
      '{"defects":[{"title":"t","file":"a.ts","line":3},{"description":"d"},{"defect":"e"},{"x":1},7]}',
      { defects: ['a.ts:3: t', 'd', 'e', '{"x":1}', '7'] },
    ],
    ['empty', '{"defects":[]}', { defects: [] }],
    ['no array', '{"verdict":"PASS"}', { defects: [], problem: 'the verdict file has no defects array' }],
    ['not JSON', '<script>', { defects: [], problem: 'the verdict file is not JSON' }],
  ]
  for (const [name, text, want] of CASES) assert.equal(verdictDefects(text), want, name)
})

test('tellHasText: a message with no text is refused; any text (even blank) goes', () => {
  const CASES: [string, Decision][] = [
    ['', refuse('usage', 'the message is empty')],
    [' ', ALLOWED],
    ['hello', ALLOWED],
  ]
  for (const [text, want] of CASES) assert.equal(tellHasText(text), want, JSON.stringify(text))
})

test('codeRedeemable and sessionLive: a code or a session counts until the instant it expires; absent is refused', () => {
  const used = refuse('unauthorized', 'this deck link was used already or has expired; run svc deck for a new one')
  const gone = refuse('unauthorized', 'the deck session has expired or was revoked; run svc deck for a new link')
  const CASES: [number | undefined, Decision, Decision][] = [
    [NOW + 1, ALLOWED, ALLOWED],
    [NOW, used, gone],
    [NOW - 1, used, gone],
    [undefined, used, gone],
  ]
  for (const [expiresAt, code, session] of CASES) {
    assert.equal(codeRedeemable(expiresAt, NOW), code, `code ${expiresAt}`)
    assert.equal(sessionLive(expiresAt, NOW), session, `session ${expiresAt}`)
  }
})

test.run()
