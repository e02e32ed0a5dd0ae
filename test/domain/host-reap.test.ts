import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  HOST_REAP_ROUNDS,
  hostAnswersForReap,
  hostReapStep,
  sharedWorktreeReapedBy,
  type HostReapAnswer,
} from '../../kernel/domain/host-reap.js'

// Issue 27, the reap of a lane on a host as home carries it out: each answer of the host, and what home does next.
// Nothing is removed there before home holds it; uncommitted work goes only with --park. One row per case.

const base = { host: 'a', conv: { id: '7', name: 'n7' }, dir: '/h/svc-lanes/app/r-k', rounds: 1 }
const snapshot = (paths: number): HostReapAnswer => ({
  kind: 'snapshot',
  commit: 'c1',
  ref: 'refs/svc/hosts/a/n7/reap-1',
  paths,
})

test('hostReapStep: a clean snapshot held asks the removal; the removal ends the reap, naming what it left out', () => {
  const rows: [string, Partial<Parameters<typeof hostReapStep>[0]> & { answer: HostReapAnswer }, unknown][] = [
    [
      'clean, held',
      { answer: snapshot(0), park: false },
      { ok: true, do: 'remove', held: 'c1', ref: 'refs/svc/hosts/a/n7/reap-1' },
    ],
    [
      'clean, held, --park',
      { answer: snapshot(0), park: true },
      { ok: true, do: 'remove', held: 'c1', ref: 'refs/svc/hosts/a/n7/reap-1' },
    ],
    [
      'dirty with --park',
      { answer: snapshot(3), park: true },
      { ok: true, do: 'park', commit: 'c1', ref: 'refs/svc/hosts/a/n7/reap-1', paths: 3 },
    ],
    ['removed', { answer: { kind: 'reaped', commit: 'c1' }, park: false }, { ok: true, do: 'done', held: 'c1' }],
    [
      'removed with files the ignore rules hid: named in a note',
      {
        answer: {
          kind: 'reaped',
          commit: 'c1',
          leftOut: { count: 3, bytes: 4200, largest: [{ path: 'build/', bytes: 4000 }] },
        },
      },
      {
        ok: true,
        do: 'done',
        held: 'c1',
        note: "note: left out 3 paths the branch's ignore rules hide, 4.2 kB in all: build/ (4.0 kB) and 2 more",
      },
    ],
    [
      'removed, nothing left out',
      { answer: { kind: 'reaped', commit: 'c1', leftOut: { count: 0, bytes: 0, largest: [] } } },
      { ok: true, do: 'done', held: 'c1' },
    ],
  ]
  for (const [why, f, want] of rows) assert.equal(hostReapStep({ ...base, park: false, ...f }), want, why)
})

test('hostReapStep: refusals say what was wrong and that nothing home lacks was removed', () => {
  const rows: [string, Partial<Parameters<typeof hostReapStep>[0]> & { answer: HostReapAnswer }, unknown][] = [
    [
      'dirty without --park',
      { answer: snapshot(1), park: false },
      {
        ok: false,
        code: 'conflict',
        message:
          'refused: a:/h/svc-lanes/app/r-k has uncommitted changes (1 path); commit them, or pass --park to save ' +
          'them to a patch',
        hint: 'nothing was removed; every byte of it is held at home at refs/svc/hosts/a/n7/reap-1',
      },
    ],
    [
      'the host refused',
      { answer: { kind: 'refused', reason: 'reap: the lane is still running; stop it first' } },
      {
        ok: false,
        code: 'conflict',
        message: 'refused: host a: the lane is still running; stop it first; nothing was removed',
      },
    ],
    [
      'no answer',
      { answer: { kind: 'silent', waitedS: 120 } },
      {
        ok: false,
        code: 'unavailable',
        message:
          'refused: host a did not answer the reap of conv 7 (n7) within 120 s; nothing home does not hold was removed',
        hint: 'svc host show a says what it answers; then reap again',
      },
    ],
    [
      'the host lost while the reap waited',
      { answer: { kind: 'lost', detail: 'no answer for 31 s' } },
      {
        ok: false,
        code: 'unavailable',
        message:
          'refused: host a stopped answering during the reap of conv 7 (n7) (no answer for 31 s); it is not reaped, ' +
          'and nothing home does not hold was removed',
        hint: 'reap again once it answers; svc host show a says what it answers now',
      },
    ],
    [
      'still changing',
      { answer: snapshot(0), rounds: HOST_REAP_ROUNDS + 1 },
      {
        ok: false,
        code: 'conflict',
        message:
          `refused: a:/h/svc-lanes/app/r-k kept changing while it was reaped (${HOST_REAP_ROUNDS} snapshots ` +
          `held at home, the last at refs/svc/hosts/a/n7/reap-1); nothing was removed`,
        hint: 'look for what still writes there, then reap again',
      },
    ],
  ]
  for (const [why, f, want] of rows) assert.equal(hostReapStep({ ...base, park: false, ...f }), want, why)
})

test('sharedWorktreeReapedBy: a --reuse pair on a host shares one worktree; either reaped, it is gone for both', () => {
  type R = { id: string; cwd: string; reaped?: { at: number }; lane?: { host?: string } }
  const lane = (id: string, o: Partial<R> = {}): R => ({ id, cwd: '/h/lanes/r1-k', lane: { host: 'a' }, ...o })
  const rows: [string, R, R[], string | undefined][] = [
    ['alone', lane('1'), [lane('1')], undefined],
    ['its pair not reaped', lane('1'), [lane('1'), lane('2')], undefined],
    ['its pair reaped', lane('1'), [lane('1'), lane('2', { reaped: { at: 5 } })], '2'],
    ['itself reaped only', lane('1', { reaped: { at: 5 } }), [lane('1', { reaped: { at: 5 } })], undefined],
    ['the same path on another host', lane('1'), [lane('2', { reaped: { at: 5 }, lane: { host: 'b' } })], undefined],
    ['another path on its host', lane('1'), [lane('2', { reaped: { at: 5 }, cwd: '/h/lanes/r1-k-i2' })], undefined],
    ['a lane here', lane('1', { lane: {} }), [lane('2', { reaped: { at: 5 }, lane: {} })], undefined],
  ]
  for (const [name, rec, records, want] of rows) assert.is(sharedWorktreeReapedBy(rec, records)?.id, want, name)
})

test('hostAnswersForReap: a host not answering refuses the reap before anything is asked of it', () => {
  const conv = { id: '7', name: 'n7' }
  const rows: [string, { detail?: string } | undefined, unknown][] = [
    ['the host answers', undefined, { ok: true }],
    [
      'host-lost, with what ssh last said',
      { detail: 'no answer for 12 s; ssh: connect to host 10.0.0.7 port 22: No route to host' },
      {
        ok: false,
        code: 'unavailable',
        message:
          'refused: host a is not answering (no answer for 12 s; ssh: connect to host 10.0.0.7 port 22: No route to ' +
          'host); conv 7 (n7) was not reaped and nothing was removed, here or there',
        hint: 'reap again once it answers; svc host show a says what it answers now',
      },
    ],
  ]
  for (const [why, lost, want] of rows) assert.equal(hostAnswersForReap({ host: 'a', conv, lost }), want, why)
})

test.run()
