import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Activity } from '../../kernel/domain/activity.js'
import { answerFits, type PendingRequest } from '../../kernel/domain/needs-you-ask.js'
import { allow, refuse, type Decision } from '../../kernel/domain/refusal.js'

// `svc conv answer`: which answers reach a request, and the exact refusal of each that does not.

const conv = { id: '9', name: 'c9' }
const question: PendingRequest = { id: 'q1', kind: 'question', tool: 'AskUserQuestion' }
const permission: PendingRequest = { id: 'p1', kind: 'permission', tool: 'Bash' }
const plan: PendingRequest = { id: 'l1', kind: 'plan' }

test('answerFits: a needs-you conversation with a request, answered in the form the request takes', () => {
  const CASES: [
    Activity,
    PendingRequest | undefined,
    'allow' | 'deny',
    string | undefined,
    Decision<{ pending: PendingRequest }>,
  ][] = [
    ['working', permission, 'allow', undefined, refuse('conflict', 'conv 9 (c9) is working; it waits on no answer')],
    ['stopped', undefined, 'deny', undefined, refuse('conflict', 'conv 9 (c9) is stopped; it waits on no answer')],
    [
      'needs-you',
      undefined,
      'allow',
      undefined,
      refuse(
        'conflict',
        'conv 9 (c9) marked itself needs-you; it waits on no request the service can answer',
        'svc tell 9 "<text>"',
      ),
    ],
    [
      'needs-you',
      question,
      'allow',
      undefined,
      refuse('usage', 'conv 9 (c9) asks a question: answer it with allow --message <answer>'),
    ],
    ['needs-you', question, 'allow', 'blue', allow({ pending: question })],
    ['needs-you', question, 'deny', undefined, allow({ pending: question })],
    [
      'needs-you',
      permission,
      'allow',
      'yes',
      refuse('usage', '--message goes with deny (the reason) or answers a question; conv 9 (c9) asks for a permission'),
    ],
    [
      'needs-you',
      plan,
      'allow',
      'ok',
      refuse('usage', '--message goes with deny (the reason) or answers a question; conv 9 (c9) asks for a plan'),
    ],
    ['needs-you', permission, 'allow', undefined, allow({ pending: permission })],
    ['needs-you', permission, 'deny', 'too risky', allow({ pending: permission })],
    ['needs-you', plan, 'deny', undefined, allow({ pending: plan })],
  ]
  for (const [activity, pending, decision, message, want] of CASES)
    assert.equal(
      answerFits(conv, activity, pending, { decision, message }),
      want,
      `${activity} ${pending?.kind} ${decision} ${message}`,
    )
})

test.run()
