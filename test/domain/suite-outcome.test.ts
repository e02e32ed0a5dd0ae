import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { suiteOutcome } from '../helpers/suite-outcome.js'

// What the test runner counts for one suite file: CI reads the sum as `N passed, N failed`.

const report = (total: number, passed: number, skipped: number) => `\n  Total:     ${total}\x1b[32m\n  Passed:    ${passed}\x1b[39m\n  Skipped:   ${skipped}\n  Duration:  12.00ms\n`

const cases: [string, string, number, { passed: number; failed: number }][] = [
  ['all passed', report(7, 7, 0), 0, { passed: 7, failed: 0 }],
  ['two failed', report(7, 5, 0), 1, { passed: 5, failed: 2 }],
  ['skipped tests are neither', report(7, 5, 2), 0, { passed: 5, failed: 0 }],
  ['crashed before any report: one failure', 'TypeError: dispatch is not a function\n', 1, { passed: 0, failed: 1 }],
  ['crashed after its tests passed: one failure', report(3, 3, 0) + 'Error: unhandled\n', 1, { passed: 3, failed: 1 }],
  ['stopped by a signal with no report: one failure', '', 1, { passed: 0, failed: 1 }],
]

test('a suite file counts its passed and failed tests, and a crashed file counts as a failure', () => {
  for (const [what, out, code, expected] of cases) assert.equal(suiteOutcome(out, code), expected, what)
})

test.run()
