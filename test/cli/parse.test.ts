import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SvcError } from '../../kernel/domain/errors.js'
import { findVerb, parseVerb } from '../../cli/parse.js'
import { VERBS, type VerbName } from '../../cli/verbs.js'

/** What parsing a command line gives: the arguments, or the usage error's message. */
function parsed(argv: string[]): unknown {
  const name = findVerb(argv)
  if (!name) return 'no verb'
  try {
    return parseVerb(name, argv.slice(name.split(' ').length))
  } catch (e) {
    assert.ok(e instanceof SvcError && e.code === 'usage', String(e))
    return (e as SvcError).message
  }
}

const CASES: [string[], unknown][] = [
  [['lane', 'start', '--role', 'builder', '--key', 'a', '--no-wait'], { role: 'builder', key: 'a', 'no-wait': true }],
  [['lane', 'start', '--key=-x'], { key: '-x' }],
  [['lane', 'start', '--key', '-x'], "option --key needs a value (one that starts with '-' is written --key=-x)"],
  [['lane', 'start', '--key'], 'option --key needs a value'],
  [['lane', 'report', '--defects', '-1'], { defects: '-1' }],
  [['lane', 'wait', '--timeout', '-5', 'r1/a'], { timeout: '-5', lane: 'r1/a' }],
  [['lane', 'start', '--reuse=yes'], 'option --reuse takes no value'],
  [['lane', 'wait', '--run', 'a', '--run', 'b'], 'option --run given twice'],
  [['conv', 'list', '--bogus'], "unknown option --bogus for 'svc conv list'"],
  [['conv', 'list', '-x'], "unknown option -x for 'svc conv list'"],
  [['conv', 'list', '--constructor'], "unknown option --constructor for 'svc conv list'"],
  [['tell', '3'], "missing <text> for 'svc tell'"],
  [['tell', '3', '--', '--hello'], { conv: '3', text: '--hello' }],
  [['conv', 'show', 'a', 'b'], "unexpected argument 'b' for 'svc conv show'"],
  [['lane', 'wait'], {}],
  [['lane', 'wait', 'r1/a', '--timeout', '5'], { lane: 'r1/a', timeout: '5' }],
  [['conv', 'answer', '7', 'allow', '--message', 'yes'], { conv: '7', decision: 'allow', message: 'yes' }],
  [['nothing'], 'no verb'],
]

test('each verb is parsed strictly against its declaration, a bad line named in one message', () => {
  for (const [argv, want] of CASES) assert.equal(parsed(argv), want, argv.join(' '))
})

test('the longest verb wins: `kernel status` over a shorter name, and flags before the verb find none', () => {
  assert.is(findVerb(['kernel', 'status', '--json']), 'kernel status')
  assert.is(findVerb(['--json', 'conv', 'list']), undefined)
})

test('every declared positional is named <required> or [optional], required ones first', () => {
  for (const [name, spec] of Object.entries(VERBS) as [VerbName, (typeof VERBS)[VerbName]][]) {
    const ps: readonly string[] = spec.positionals
    assert.ok(
      ps.every((p) => /^(<[a-z]+>|\[[a-z]+\])$/.test(p)),
      name,
    )
    assert.ok(
      ps.findIndex((p) => p.startsWith('[')) === -1 ||
        ps.slice(ps.findIndex((p) => p.startsWith('['))).every((p) => p.startsWith('[')),
      name,
    )
  }
})

test.run()
