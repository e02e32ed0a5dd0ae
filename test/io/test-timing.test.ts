import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { testNumber, testTiming } from '../../kernel/io/test-timing.js'

// Injectable timings: a test build may shorten a wait through the environment; no other build can.

const cases: [string, Record<string, string | undefined>, number][] = [
  ['no variable: the default', { SERVICE_TEST_BUILD: '1' }, 10_000],
  ['a test build takes the value', { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '250' }, 250],
  ['zero is a value', { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '0' }, 0],
  ['any other build ignores it', { SERVICE_TEST_RECONCILE_GRACE_MS: '250' }, 10_000],
  [
    'a build flag other than 1 ignores it',
    { SERVICE_TEST_BUILD: 'yes', SERVICE_TEST_RECONCILE_GRACE_MS: '250' },
    10_000,
  ],
  [
    'not a whole number of milliseconds: the default',
    { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '2.5s' },
    10_000,
  ],
  ['negative: the default', { SERVICE_TEST_BUILD: '1', SERVICE_TEST_RECONCILE_GRACE_MS: '-1' }, 10_000],
]

test('injectable timings: honoured only in a test build, only as whole milliseconds', () => {
  const saved = { b: process.env.SERVICE_TEST_BUILD, g: process.env.SERVICE_TEST_RECONCILE_GRACE_MS }
  try {
    for (const [what, env, expected] of cases) {
      delete process.env.SERVICE_TEST_BUILD
      delete process.env.SERVICE_TEST_RECONCILE_GRACE_MS
      Object.assign(process.env, env)
      assert.is(testTiming('RECONCILE_GRACE', 10_000), expected, what)
      assert.is(testNumber('RECONCILE_GRACE_MS'), expected === 10_000 ? undefined : expected, `testNumber: ${what}`)
    }
  } finally {
    for (const [k, v] of [
      ['SERVICE_TEST_BUILD', saved.b],
      ['SERVICE_TEST_RECONCILE_GRACE_MS', saved.g],
    ] as const)
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  }
})

test.run()
