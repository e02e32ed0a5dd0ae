import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Activity } from '../../kernel/domain/activity.js'
import {
  briefGiven,
  callerSet,
  conversationFound,
  convNameFits,
  isDriven,
  markReasonFits,
  mayArchive,
  mayStillChange,
  shellHasScript,
  workingDirFits,
  workingDirGiven,
  type DirFound,
} from '../../kernel/domain/conversation.js'
import type { Harness, Phase } from '../../kernel/domain/keys.js'
import { ALLOWED, allow, refuse, type Decision } from '../../kernel/domain/refusal.js'

// Which conversations the watcher watches and the reconcile checks: every combination.

const ended = { at: 1, source: 'stop', detail: 'x' }

test('isDriven: a runner drives it, and its record says neither ended nor archived', () => {
  for (const harness of ['shell', 'claude', 'codex', 'none'])
    for (const e of [undefined, ended])
      for (const archived of [undefined, false, true]) {
        const want = harness !== 'none' && !e && !archived
        assert.is(
          isDriven({ harness, ended: e, archived } as never),
          want,
          `${harness} ended=${Boolean(e)} archived=${archived}`,
        )
      }
})

test('mayStillChange: driven, and its runner has not written its end; the state is read only when driven', () => {
  const unread = () => {
    throw new Error('the state of a conversation that is not driven was read')
  }
  const live = { harness: 'shell', ended: undefined, archived: undefined } as never
  assert.is(
    mayStillChange(live, () => undefined),
    true,
    'no state yet: the runner may still write one',
  )
  assert.is(
    mayStillChange(live, () => ({})),
    true,
  )
  assert.is(
    mayStillChange(live, () => ({ ended: { at: 2 } })),
    false,
    'the runner wrote its end',
  )
  assert.is(mayStillChange({ harness: 'none' } as never, unread), false)
  assert.is(mayStillChange({ harness: 'shell', ended } as never, unread), false)
  assert.is(mayStillChange({ harness: 'shell', archived: true } as never, unread), false)
})

// The refusals of the conversation verbs, as rules: each row is the facts and the exact decision.

test('callerSet: $SERVICE_CONVERSATION is set, else the verb says how to give it', () => {
  const CASES: [string | undefined, string, Decision<{ ref: string }>][] = [
    ['12', 'svc conv mark must run inside a conversation', allow({ ref: '12' })],
    [
      undefined,
      'svc conv mark must run inside a conversation',
      refuse('usage', 'SERVICE_CONVERSATION is not set: svc conv mark must run inside a conversation'),
    ],
    [
      '',
      'run svc worker run inside a conversation',
      refuse('usage', 'SERVICE_CONVERSATION is not set: run svc worker run inside a conversation'),
    ],
  ]
  for (const [ref, fix, want] of CASES) assert.equal(callerSet(ref, fix), want, String(ref))
})

test('conversationFound: a reference that names no record is not_found, with where to look', () => {
  assert.equal(conversationFound('7', { id: '7' }), allow({ rec: { id: '7' } }))
  assert.equal(
    conversationFound('conv-x', undefined),
    refuse('not_found', 'no conversation conv-x', 'svc conv list shows the conversations'),
  )
})

test('convNameFits: no name, or a conversation name; a bad one is echoed on one short line', () => {
  const bad = (shown: string) =>
    refuse(
      'usage',
      `invalid name '${shown}': use lower-case letters, digits, '.', '_' or '-', starting with a letter or digit`,
    )
  const CASES: [string | undefined, Decision][] = [
    [undefined, ALLOWED],
    ['ok-name.1_x', ALLOWED],
    ['Upper', bad('Upper')],
    ['-lead', bad('-lead')],
    ['a\nb', bad('a\\nb')],
    ['x'.repeat(200), bad('x'.repeat(77) + '...')],
  ]
  for (const [name, want] of CASES) assert.equal(convNameFits(name), want, String(name))
})

test('shellHasScript: only the shell harness needs a first message (its script)', () => {
  const CASES: [Harness, string | undefined, Decision][] = [
    ['shell', 'echo hi', ALLOWED],
    ['shell', undefined, refuse('usage', 'the shell harness runs a script: give it --prompt (or a brief)')],
    ['shell', '', refuse('usage', 'the shell harness runs a script: give it --prompt (or a brief)')],
    ['claude', undefined, ALLOWED],
    ['none', undefined, ALLOWED],
  ]
  for (const [harness, first, want] of CASES) assert.equal(shellHasScript(harness, first), want, `${harness} ${first}`)
})

test('workingDirGiven and workingDirFits: a working directory is given, absolute, there, and a directory', () => {
  assert.equal(workingDirGiven('/srv/app'), allow({ cwd: '/srv/app' }))
  assert.equal(workingDirGiven(undefined), refuse('usage', 'no working directory: pass --cwd or --project'))
  const CASES: [string, DirFound, Decision][] = [
    ['/srv/app', 'directory', ALLOWED],
    ['srv/app', 'relative', refuse('usage', 'working directory srv/app is not an absolute path')],
    ['/nope', 'missing', refuse('usage', 'working directory /nope does not exist')],
    ['/etc/hosts', 'other', refuse('usage', 'working directory /etc/hosts is not a directory')],
    ['/a\tb', 'missing', refuse('usage', 'working directory /a\\tb does not exist')],
  ]
  for (const [dir, found, want] of CASES) assert.equal(workingDirFits(dir, found), want, `${dir} ${found}`)
})

test('mayArchive: only an ended conversation is archived; a live one is told to stop first', () => {
  const rec = { id: '4', name: 'c4' }
  const CASES: [Activity, Decision][] = [
    ['stopped', ALLOWED],
    ['idle', refuse('conflict', 'conv 4 (c4) is idle; stop it first', 'svc conv stop 4')],
    ['failed-to-start', ALLOWED],
    ['working', refuse('conflict', 'conv 4 (c4) is working; stop it first', 'svc conv stop 4')],
    ['needs-you', refuse('conflict', 'conv 4 (c4) is needs-you; stop it first', 'svc conv stop 4')],
    ['starting', refuse('conflict', 'conv 4 (c4) is starting; stop it first', 'svc conv stop 4')],
  ]
  for (const [activity, want] of CASES) assert.equal(mayArchive(rec, activity), want, activity)
})

test('markReasonFits: --reason goes only with needs-you', () => {
  const CASES: [Phase, string | undefined, Decision][] = [
    ['needs-you', 'which db?', ALLOWED],
    ['needs-you', undefined, ALLOWED],
    ['idle', undefined, ALLOWED],
    ['idle', 'lunch', refuse('usage', '--reason goes only with needs-you')],
    ['working', 'x', refuse('usage', '--reason goes only with needs-you')],
  ]
  for (const [phase, reason, want] of CASES) assert.equal(markReasonFits(phase, reason), want, `${phase} ${reason}`)
})

test('briefGiven (SPEC.md 4.1 start, worker run): exactly one of --brief or --prompt, and not empty', () => {
  const rows: [string, { brief?: string; prompt?: string }, Decision<{ brief: string }>][] = [
    ['a prompt', { prompt: 'do it' }, allow({ brief: 'do it' })],
    ["a brief file's text", { brief: '# Brief\n' }, allow({ brief: '# Brief\n' })],
    ['neither', {}, refuse('usage', 'give exactly one of --brief <file> or --prompt <text>')],
    ['both', { brief: 'a', prompt: 'b' }, refuse('usage', 'give exactly one of --brief <file> or --prompt <text>')],
    ['an empty prompt', { prompt: '' }, refuse('usage', 'the brief is empty')],
    ['a brief of blanks', { brief: ' \n\t' }, refuse('usage', 'the brief is empty')],
  ]
  for (const [name, input, want] of rows) assert.equal(briefGiven(input), want, name)
})

test.run()
