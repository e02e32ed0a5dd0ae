import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ActivityView } from '../../kernel/domain/activity.js'
import {
  checkNotifyConfig,
  describeNotifyConfig,
  sinkTakes,
  type NotifyConfig,
} from '../../kernel/domain/notify-config.js'
import {
  firstLineOf,
  needsYouBody,
  newReports,
  notificationText,
  reportBody,
  turnedNeedsYou,
} from '../../kernel/domain/notify-events.js'
import type { Report } from '../../kernel/domain/report.js'
import { afterAttempt, httpAttempt } from '../../kernel/domain/retry.js'

const SINCE = 1_000_000
const view = (value: ActivityView['value'], at: number, reason?: 'question'): ActivityView => ({
  value,
  ...(reason ? { reason } : {}),
  evidence: { source: 'self-mark', at },
})

test('turnedNeedsYou: the transition, once; a re-read is none; with no earlier look only a needs-you since notifications began', () => {
  const rows: [string, ActivityView | undefined, ActivityView, boolean][] = [
    ['working to needs-you', view('working', SINCE + 1), view('needs-you', SINCE + 2), true],
    ['idle to needs-you', view('idle', SINCE + 1), view('needs-you', SINCE + 2, 'question'), true],
    ['the same needs-you read again', view('needs-you', SINCE + 2), view('needs-you', SINCE + 2), false],
    [
      'a newer needs-you (the first answered in between, unseen)',
      view('needs-you', SINCE + 2),
      view('needs-you', SINCE + 9),
      true,
    ],
    ['needs-you to working', view('needs-you', SINCE + 2), view('working', SINCE + 3), false],
    ['still working', view('working', SINCE + 1), view('working', SINCE + 1), false],
    ['first look: a needs-you begun after notifications started', undefined, view('needs-you', SINCE + 5), true],
    ['first look: a needs-you begun exactly then', undefined, view('needs-you', SINCE), true],
    ['first look: a needs-you older than the notifications: no news', undefined, view('needs-you', SINCE - 1), false],
    ['first look: idle', undefined, view('idle', SINCE + 5), false],
  ]
  for (const [what, before, after, expected] of rows) assert.is(turnedNeedsYou(before, after, SINCE), expected, what)
})

const report = (seq: number, at: number, body = 'x'): Report => ({ seq, at, status: 'done', body })

test('newReports: after the last seen seq; with none seen, those filed since notifications began', () => {
  const all = [report(1, SINCE - 10), report(2, SINCE + 1), report(3, SINCE + 2)]
  const rows: [string, number | undefined, number[]][] = [
    ['none seen: only those since', undefined, [2, 3]],
    ['seen up to 1', 1, [2, 3]],
    ['seen up to 2 (the watcher echoing the kernel write)', 2, [3]],
    ['seen all', 3, []],
  ]
  for (const [what, last, seqs] of rows)
    assert.equal(
      newReports(all, last, SINCE).map((r) => r.seq),
      seqs,
      what,
    )
  assert.equal(newReports([], undefined, SINCE), [])
})

test('firstLineOf: the first line with text, trimmed, on one bounded line', () => {
  const rows: [string, string | undefined][] = [
    ['Done.\nmore', 'Done.'],
    ['\n\n   Built it  \nx', 'Built it'],
    ['', undefined],
    ['  \n\t\n', undefined],
    ['a\u0007bell', 'a\\x07bell'],
    ['y'.repeat(500), 'y'.repeat(197) + '...'],
  ]
  for (const [body, expected] of rows) assert.is(firstLineOf(body), expected, JSON.stringify(body).slice(0, 30))
})

const lane = {
  id: '7',
  name: 'r1-b-builder-i2',
  title: 'parser',
  lane: { run: 'r1', key: 'b', role: 'builder' as const, iteration: 2 },
}
const root = { id: '3', name: 'c3' }

test('bodies: small JSON with the conversation, the lane when there is one, and the time as ISO 8601', () => {
  assert.equal(needsYouBody(root, view('needs-you', 0, 'question')), {
    event: 'needs-you',
    conv: { id: '3', name: 'c3' },
    reason: 'question',
    at: '1970-01-01T00:00:00.000Z',
  })
  assert.equal(needsYouBody(lane, view('needs-you', 1000)), {
    event: 'needs-you',
    conv: { id: '7', name: 'r1-b-builder-i2', title: 'parser' },
    lane: { run: 'r1', key: 'b', role: 'builder', iteration: 2 },
    at: '1970-01-01T00:00:01.000Z',
  })
  assert.equal(reportBody(lane, { ...report(4, 2000, 'BLOCKED on a ruling\nwhy'), status: 'blocked' }), {
    event: 'report',
    conv: { id: '7', name: 'r1-b-builder-i2', title: 'parser' },
    lane: { run: 'r1', key: 'b', role: 'builder', iteration: 2 },
    status: 'blocked',
    firstLine: 'BLOCKED on a ruling',
    at: '1970-01-01T00:00:02.000Z',
  })
  assert.not.ok('firstLine' in reportBody(lane, report(5, 0, '\n')))
})

test('notificationText: the title names the lane (or conversation) and what happened', () => {
  const rows: [ReturnType<typeof needsYouBody>, { title: string; text: string }][] = [
    [
      needsYouBody(root, view('needs-you', 0, 'question')),
      { title: 'conv c3 needs you (question)', text: 'conv 3 (c3)' },
    ],
    [needsYouBody(lane, view('needs-you', 0)), { title: 'r1/b builder i2 needs you', text: 'parser' }],
    [reportBody(lane, report(1, 0, 'Done.')), { title: 'r1/b builder i2 reported done', text: 'Done.' }],
    [reportBody(root, report(1, 0, '')), { title: 'conv c3 reported done', text: '(empty report)' }],
  ]
  for (const [body, expected] of rows) assert.equal(notificationText(body), expected)
})

test('checkNotifyConfig: valid blocks', () => {
  const rows: [unknown, NotifyConfig | undefined][] = [
    [null, undefined],
    [undefined, undefined],
    [{ webhook: { url: 'https://hooks.example.com/x?k=1' } }, { webhook: { url: 'https://hooks.example.com/x?k=1' } }],
    [
      { webhook: { url: 'http://127.0.0.1:9/h', headers: { Authorization: 'Bearer x' }, events: ['report'] } },
      { webhook: { url: 'http://127.0.0.1:9/h', headers: { Authorization: 'Bearer x' }, events: ['report'] } },
    ],
    [
      { command: ['show-note'], events: ['needs-you', 'report'] },
      { command: ['show-note'], events: ['needs-you', 'report'] },
    ],
  ]
  for (const [doc, expected] of rows)
    assert.equal(checkNotifyConfig(doc), { ok: true, value: expected }, JSON.stringify(doc))
})

test('checkNotifyConfig: each bad block is one line naming the key and what it must be', () => {
  const rows: [unknown, string][] = [
    [{ webhook: { url: 'ftp://x/y' } }, 'webhook.url: an http:// or https:// URL'],
    [{ webhook: { url: 'not a url' } }, 'webhook.url: an http:// or https:// URL'],
    [{ webhook: {} }, 'webhook.url: missing'],
    [
      { webhook: { url: 'https://x', headers: { 'bad name': 'v' } } },
      "webhook.headers.bad name: a header name of letters, digits and !#$%&'*+.^_`|~-",
    ],
    [
      { webhook: { url: 'https://x', headers: { 'X-A': 'a\r\nX-B: b' } } },
      'webhook.headers.X-A: a header value on one line',
    ],
    [
      { webhook: { url: 'https://x', events: ['stopped'] } },
      'webhook.events.0: expected ("needs-you" | "report"), got "stopped"',
    ],
    [{ command: [] }, 'command: a program and its arguments'],
    [{ command: 'show-note hi' }, 'command: expected Array, got "show-note hi"'],
    [{ command: [''] }, 'command.0: a non-empty argument'],
    [{ events: ['report'] }, '(top level): a webhook or a command (or both)'],
    [{ events: [], command: ['x'] }, 'events: at least one of needs-you, report'],
    [{ webhook: { url: 'https://x' }, url: 'https://y' }, 'url: unknown key'],
    ['webhook', '(top level): expected Object, got "webhook"'],
  ]
  for (const [doc, problem] of rows) assert.equal(checkNotifyConfig(doc), { ok: false, problem }, JSON.stringify(doc))
})

test('sinkTakes: the webhook own events, else the block events, else both; a sink not configured takes none', () => {
  const rows: [NotifyConfig, 'webhook' | 'command', 'needs-you' | 'report', boolean][] = [
    [{ webhook: { url: 'https://x' } }, 'webhook', 'needs-you', true],
    [{ webhook: { url: 'https://x' } }, 'webhook', 'report', true],
    [{ webhook: { url: 'https://x' } }, 'command', 'report', false],
    [{ webhook: { url: 'https://x' }, events: ['report'] }, 'webhook', 'needs-you', false],
    [{ webhook: { url: 'https://x', events: ['needs-you'] }, events: ['report'] }, 'webhook', 'needs-you', true],
    [
      { webhook: { url: 'https://x', events: ['needs-you'] }, command: ['n'], events: ['report'] },
      'command',
      'needs-you',
      false,
    ],
    [
      { webhook: { url: 'https://x', events: ['needs-you'] }, command: ['n'], events: ['report'] },
      'command',
      'report',
      true,
    ],
  ]
  for (const [config, sink, event, expected] of rows)
    assert.is(sinkTakes(config, sink, event), expected, `${JSON.stringify(config)} ${sink} ${event}`)
})

test('describeNotifyConfig: the webhook by its origin only (its path may hold a secret), each sink with its events', () => {
  assert.is(
    describeNotifyConfig({ webhook: { url: 'https://hooks.example.com/T0/secret' } }),
    'webhook to https://hooks.example.com (needs-you, report)',
  )
  assert.is(
    describeNotifyConfig({
      webhook: { url: 'http://127.0.0.1:8/h', events: ['report'] },
      command: ['/opt/notifier/show', 'x'],
    }),
    'webhook to http://127.0.0.1:8 (report); command /opt/notifier/show (needs-you, report)',
  )
})

const SCHEDULE = { tries: 3, firstDelayMs: 1000, factor: 2 }

test('afterAttempt: done on success; retried with backoff; given up after the last try or on a final refusal', () => {
  const fail = { ok: false as const, error: 'HTTP 500' }
  const rows: [number, Parameters<typeof afterAttempt>[2], ReturnType<typeof afterAttempt>][] = [
    [1, { ok: true }, { do: 'done' }],
    [1, fail, { do: 'retry', inMs: 1000 }],
    [2, fail, { do: 'retry', inMs: 2000 }],
    [3, fail, { do: 'give-up', why: 'HTTP 500 (gave up after 3 tries)' }],
    [1, { ok: false, error: 'HTTP 404', permanent: true }, { do: 'give-up', why: 'HTTP 404 (not retried)' }],
    [3, { ok: true }, { do: 'done' }],
  ]
  for (const [n, outcome, expected] of rows)
    assert.equal(afterAttempt(SCHEDULE, n, outcome), expected, `${n} ${JSON.stringify(outcome)}`)
  assert.equal(afterAttempt({ tries: 1, firstDelayMs: 0, factor: 1 }, 1, fail), { do: 'give-up', why: 'HTTP 500' })
})

test('httpAttempt: 2xx delivered; 408, 429, 5xx retried; other answers final', () => {
  const rows: [number, ReturnType<typeof httpAttempt>][] = [
    [200, { ok: true }],
    [204, { ok: true }],
    [299, { ok: true }],
    [301, { ok: false, error: 'HTTP 301', permanent: true }],
    [400, { ok: false, error: 'HTTP 400', permanent: true }],
    [404, { ok: false, error: 'HTTP 404', permanent: true }],
    [408, { ok: false, error: 'HTTP 408' }],
    [429, { ok: false, error: 'HTTP 429' }],
    [500, { ok: false, error: 'HTTP 500' }],
    [503, { ok: false, error: 'HTTP 503' }],
  ]
  for (const [status, expected] of rows) assert.equal(httpAttempt(status), expected, String(status))
})

test.run()
