import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteOutcome, failureRecap } from '../helpers/suite-outcome.js'

// What the test runner counts for one suite file: CI reads the sum as `N passed, N failed`.

const report = (total: number, passed: number, skipped: number) =>
  `\n  Total:     ${total}\x1b[32m\n  Passed:    ${passed}\x1b[39m\n  Skipped:   ${skipped}\n  Duration:  12.00ms\n`

const cases: [string, string, number, { passed: number; failed: number }][] = [
  ['all passed', report(7, 7, 0), 0, { passed: 7, failed: 0 }],
  ['two failed', report(7, 5, 0), 1, { passed: 5, failed: 2 }],
  ['skipped tests are neither', report(7, 5, 2), 0, { passed: 5, failed: 0 }],
  ['crashed before any report: one failure', 'TypeError: dispatch is not a function\n', 1, { passed: 0, failed: 1 }],
  ['crashed after its tests passed: one failure', report(3, 3, 0) + 'Error: unhandled\n', 1, { passed: 3, failed: 1 }],
  ['stopped by a signal with no report: one failure', '', 1, { passed: 0, failed: 1 }],
  ['queued no test: one failure', report(0, 0, 0), 0, { passed: 0, failed: 1 }],
  ['ended with success before any report: one failure', 'starting\n', 0, { passed: 0, failed: 1 }],
]

test('a suite file counts its passed and failed tests; a crashed file, or one that ran no test, is a failure', () => {
  for (const [what, out, code, expected] of cases) assert.equal(suiteOutcome(out, code), expected, what)
})

const uvuFailure =
  '\x1b[1mx.test.js\x1b[22m\n\x1b[90m• \x1b[39m\x1b[31m✘ \x1b[39m  (1 / 2)\n\n  \x1b[1m\x1b[41m FAIL ' +
  '\x1b[22m\x1b[49m "broken one"\n    the thing  (equal)\n    at handler (x.test.js:3:33)\n' +
  report(2, 1, 0)

test('the recap of a failed file starts at its first FAIL line, without colours, and names the file', () => {
  const recap = failureRecap('e2e/x.test.js', uvuFailure).split('\n')
  assert.equal(recap.slice(0, 4), [
    'FAILED e2e/x.test.js:',
    '   FAIL  "broken one"',
    '    the thing  (equal)',
    '    at handler (x.test.js:3:33)',
  ])
  assert.not.match(recap.join('\n'), /\x1b|✘/)
})

test('the recap of a file that crashed without a FAIL line is its last lines, and says how many it left out', () => {
  const out = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\nTypeError: boom\n'
  const recap = failureRecap('io/y.test.js', out).trimEnd().split('\n')
  assert.equal(recap[0], 'FAILED io/y.test.js:')
  assert.equal(recap[1], '(61 more lines in its report above)')
  assert.equal(recap.at(-1), 'TypeError: boom')
  assert.equal(recap.length, 2 + 40)
})

test('a long failure is cut to 40 lines, with a line saying how many more there are', () => {
  const out = ' FAIL  "long"\n' + Array.from({ length: 99 }, (_, i) => `  at f${i}`).join('\n')
  const recap = failureRecap('e2e/z.test.js', out).trimEnd().split('\n')
  assert.equal(recap.length, 1 + 40 + 1)
  assert.equal(recap.at(-1), '(60 more lines in its report above)')
})

test.run()
