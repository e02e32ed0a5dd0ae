import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { scratchDir } from '../helpers/home.js'

// SERVICE_FAULT_ARM=<file>: a process kills itself at the n-th fault point it passes after it first read the tag of
// a file holding `<tag> <n>` (points named in a third field, `<name>,…`, not counted); no file, no kill; test builds
// only. Each case runs a process that passes fault points (`point` one named rename, `point:<name>` one of that name)
// and rewrites the file as told, printing each point it survived.

const FAULT = new URL('../../kernel/io/fault.js', import.meta.url).href
const SCRIPT = `
import { writeFileSync } from 'node:fs'
const { faultPoint } = await import(${JSON.stringify(FAULT)})
let passed = 0
for (const step of JSON.parse(process.argv[1])) {
  if (step.startsWith('point')) {
    faultPoint(step.split(':')[1] ?? 'rename')
    console.log(++passed)
  } else writeFileSync(process.env.SERVICE_FAULT_ARM, step)
}`

const cases: [string, (string | 'point')[], boolean, number, 'SIGKILL' | null][] = [
  ['armed at 2: the first point passes, the second kills', ['t 2', 'point', 'point', 'point'], true, 1, 'SIGKILL'],
  ['armed at 1: the first point kills', ['t 1', 'point'], true, 0, 'SIGKILL'],
  ['no file: nothing kills', ['point', 'point'], true, 2, null],
  [
    'a new tag counts from its first read',
    ['a 3', 'point', 'point', 'b 2', 'point', 'point', 'point'],
    true,
    3,
    'SIGKILL',
  ],
  ['the same tag again keeps counting', ['a 3', 'point', 'point', 'a 3', 'point', 'point'], true, 2, 'SIGKILL'],
  ['not a test build: the file is ignored', ['t 1', 'point', 'point'], false, 2, null],
  [
    'points of a name passed over are not counted',
    ['t 2 fsync-temp', 'point:fsync-temp', 'point', 'point:fsync-temp', 'point:fsync-temp', 'point'],
    true,
    4,
    'SIGKILL',
  ],
  [
    'several names passed over; any other name counts',
    [
      't 2 fsync-temp,write-temp',
      'point:write-temp',
      'point:fsync-temp',
      'point:fsync-dir',
      'point:write-temp',
      'point',
    ],
    true,
    4,
    'SIGKILL',
  ],
  ['passed over under one tag, counted under the next', ['a 9 rename', 'point', 'b 1', 'point'], true, 1, 'SIGKILL'],
]

test('the armed fault hook kills at the n-th point after its tag was first read, only in a test build', () => {
  const dir = scratchDir('fault-arm')
  mkdirSync(dir, { recursive: true })
  try {
    for (const [i, [what, steps, testBuild, survived, signal]] of cases.entries()) {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SERVICE_FAULT_ARM: join(dir, `arm-${i}`) }
      if (testBuild) env.SERVICE_TEST_BUILD = '1'
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT, JSON.stringify(steps)], {
        env,
        encoding: 'utf8',
      })
      assert.is(r.stderr, '', what)
      assert.is(r.signal, signal, what)
      assert.is(r.stdout.split('\n').filter(Boolean).length, survived, `${what}: ${r.stdout}`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
