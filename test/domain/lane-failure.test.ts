import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Activity, Evidence } from '../../kernel/domain/activity.js'
import { laneFailure, type EndFacts } from '../../kernel/domain/lane-failure.js'

const AT = 1_700_000_000_000
const exit = (exitCode: number | null, signal: string | null = null, source = 'process exit'): EndFacts => ({
  source,
  at: AT,
  exitCode,
  signal,
})
const spawn: Evidence = { source: 'spawn', at: AT, detail: 'spawn claude ENOENT' }

type Case = [
  string,
  { activity: Activity; reported: boolean; spawnError?: Evidence; end?: EndFacts },
  Evidence | undefined,
]
const CASES: Case[] = [
  [
    'exit code 3, no report',
    { activity: 'stopped', reported: false, end: exit(3) },
    { source: 'process exit', at: AT, detail: 'exit code 3' },
  ],
  [
    'exit code 127 (command not found), no report',
    { activity: 'stopped', reported: false, end: exit(127) },
    { source: 'process exit', at: AT, detail: 'exit code 127' },
  ],
  [
    'killed by a signal nobody sent through stop',
    { activity: 'stopped', reported: false, end: exit(null, 'SIGKILL') },
    { source: 'process exit', at: AT, detail: 'signal SIGKILL' },
  ],
  ['never started', { activity: 'failed-to-start', reported: false, spawnError: spawn }, spawn],
  [
    'the runner vanished (reconcile)',
    {
      activity: 'stopped',
      reported: false,
      end: { source: 'reconcile', at: AT, detail: 'runner pid 7 is gone and wrote no end' },
    },
    { source: 'reconcile', at: AT, detail: 'runner pid 7 is gone and wrote no end' },
  ],
  [
    'exit code 0 without a report: stopped, not failed',
    { activity: 'stopped', reported: false, end: exit(0) },
    undefined,
  ],
  [
    'exit code 3 after a report: finished, not failed',
    { activity: 'stopped', reported: true, end: exit(3) },
    undefined,
  ],
  [
    'stopped on request (exit 143): not failed',
    { activity: 'stopped', reported: false, end: exit(143, null, 'stop') },
    undefined,
  ],
  [
    'stopped on request, by signal: not failed',
    { activity: 'stopped', reported: false, end: exit(null, 'SIGTERM', 'stop (SIGTERM)') },
    undefined,
  ],
  ['still working (an end not yet read as such)', { activity: 'working', reported: false, end: exit(3) }, undefined],
  ['no end at all (created, never ran)', { activity: 'stopped', reported: false }, undefined],
]

test('laneFailure: a lane that ended with no report, unasked, by an exit code other than 0, a signal, a spawn error or a vanished runner has failed', () => {
  for (const [name, facts, want] of CASES) assert.equal(laneFailure(facts), want, name)
})

test.run()
