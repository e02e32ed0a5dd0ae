import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Activity } from '../../kernel/domain/activity.js'
import { IDLE_LIMIT_MS, pickNext, type WaitMember } from '../../kernel/domain/wait.js'
import type { Report } from '../../kernel/domain/report.js'

// SPEC.md 4.1 wait and section 8: the next report after the cursor, oldest first; exit 2 when every lane exited, or
// the live ones stayed idle for the limit with no report; else keep waiting.

const NOW = 1_000_000_000
const member = (name: string, value: Activity, since: number, reports: Partial<Report>[] = []): WaitMember => ({
  name,
  activity: { value, evidence: { source: value === 'idle' ? 'error' : 'stream', at: since } },
  reports: reports.map((r, i) => ({ seq: i + 1, at: 0, status: 'done', body: 'b', ...r }) as Report),
})

test('pickNext: a row per case of the wait rules', () => {
  const CASES: [string, WaitMember[], number | undefined, string][] = [
    ['no lanes at all', [], undefined, 'exited: run r1 has no lanes'],
    ['the oldest report after the cursor wins', [member('b', 'working', NOW, [{ at: 20 }]), member('a', 'working', NOW, [{ at: 10 }, { at: 30 }])], undefined, 'report a 1'],
    ['working: keep waiting', [member('a', 'working', NOW - IDLE_LIMIT_MS * 2)], undefined, 'pending'],
    ['idle under the limit: keep waiting', [member('a', 'idle', NOW - IDLE_LIMIT_MS + 1)], undefined, 'pending'],
    ['idle for 10 minutes with no report: exit 2', [member('a', 'idle', NOW - IDLE_LIMIT_MS)], undefined, 'idle: run r1 stayed idle for 10 minutes with no report'],
    ['one lane idle, another working: keep waiting', [member('a', 'idle', 0), member('b', 'working', NOW)], undefined, 'pending'],
    ['idle and stopped: the live one decides', [member('a', 'idle', 0), member('b', 'stopped', 0)], undefined, 'idle: run r1 stayed idle for 10 minutes with no report'],
    ['a shortened limit (a test build) reads in seconds', [member('a', 'idle', NOW - 2000)], 2000, 'idle: run r1 stayed idle for 2 s with no report'],
    ['every lane stopped', [member('a', 'stopped', 0), member('b', 'failed-to-start', 0)], undefined, 'exited: every lane of run r1 has exited with no further report'],
  ]
  for (const [name, members, limit, want] of CASES) {
    const p = pickNext(members, undefined, NOW, 'run r1', limit)
    const got = p.kind === 'report' ? `report ${p.member.name} ${p.report.seq}` : p.kind === 'pending' ? 'pending' : `${p.kind}: ${p.detail}`
    assert.is(got, want, name)
  }
})

test('pickNext: a set of workers is named so: no workers, every worker exited', () => {
  const none = pickNext([], undefined, NOW, 'issue local:3', IDLE_LIMIT_MS, 'worker')
  assert.equal(none, { kind: 'exited', detail: 'issue local:3 has no workers' })
  const gone = pickNext([member('a', 'stopped', 0), member('b', 'stopped', 0)], undefined, NOW, 'issue local:3', IDLE_LIMIT_MS, 'worker')
  assert.equal(gone, { kind: 'exited', detail: 'every worker of issue local:3 has exited with no further report' })
})

test.run()
