import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ConversationRecord } from '../../kernel/domain/conversation.js'
import {
  dirClaimRefusal,
  notOwnDirectory,
  pathFree,
  planUndo,
  reusableDirectory,
  type LaunchIntent,
  type UndoFacts,
} from '../../kernel/domain/lane-claim.js'
import { ALLOWED, refuse } from '../../kernel/domain/refusal.js'
import { optionLikeRef } from '../../kernel/domain/launch.js'

// A lane's hold on its directory (issue 16, items 2, 3 and 13): who may be given a directory, whether the one at a
// lane's path is its own, what a launch cut short may take back, and which refs never reach git.

const lane = (id: string, run: string, key: string, extra: Partial<ConversationRecord> = {}): ConversationRecord => ({
  id,
  name: `${run}-${key}-builder-i1`,
  createdAt: 1,
  harness: 'none',
  cwd: `/h/lanes/${run}-${key}`,
  lane: { run, key, role: 'builder', dir: `${run}-${key}`, root: '/h/lanes', iteration: 1 },
  ...extra,
})

test('dirClaimRefusal: a lane holds its directory until it is reaped (or archived); the refusal names it', () => {
  const a = lane('2', 'col-a', 'b')
  const cases: [string, ConversationRecord[], string | undefined][] = [
    ['no lane there', [lane('3', 'r1', 'x')], undefined],
    [
      'held',
      [a],
      'refused: /h/lanes/col-a-b is the directory of lane col-a/b builder i1 (conv 2), which is not reaped; reap it ' +
        'first (svc lane reap 2)',
    ],
    ['reaped with --keep', [{ ...a, reaped: { at: 5 } }], undefined],
    ['archived by a reap of before', [{ ...a, archived: { at: 5 } }], undefined],
    ['a root conversation in that directory holds nothing', [{ ...a, lane: undefined }], undefined],
  ]
  for (const [what, records, want] of cases)
    assert.equal(
      dirClaimRefusal('/h/lanes/col-a-b', records),
      want === undefined ? { ok: true } : { ok: false, code: 'conflict', message: want },
      what,
    )
})

test('notOwnDirectory: the launch id in the worktree (git-backed), the directory identity (play); lanes of before pass', () => {
  const refusal =
    'refused: /h/lanes/col-a-b is not the directory this lane was launched in (it was removed and made again ' +
    'since); nothing was touched'
  const cases: [
    string,
    Parameters<typeof notOwnDirectory>[0],
    Parameters<typeof notOwnDirectory>[2],
    string | undefined,
  ][] = [
    ['the worktree it made', { role: 'builder', made: { launch: 'L1' } }, { launch: 'L1', dirId: '1:2:3' }, undefined],
    ['another launch made it', { role: 'builder', made: { launch: 'L1' } }, { launch: 'L2', dirId: '1:2:3' }, refusal],
    ['a worktree made by hand: no launch id', { role: 'critic', made: { launch: 'L1' } }, { dirId: '1:2:3' }, refusal],
    [
      'the play directory it made',
      { role: 'play', made: { launch: 'L1', dirId: '1:2:3' } },
      { dirId: '1:2:3' },
      undefined,
    ],
    [
      'a play directory made again (same inode, another birth)',
      { role: 'play', made: { launch: 'L1', dirId: '1:2:3' } },
      { dirId: '1:2:4' },
      refusal,
    ],
    ['a lane launched before identities were recorded', { role: 'builder' }, {}, undefined],
  ]
  for (const [what, l, found, want] of cases)
    assert.equal(
      notOwnDirectory(l, '/h/lanes/col-a-b', found),
      want === undefined ? { ok: true } : { ok: false, code: 'conflict', message: want },
      what,
    )
})

const intent: LaunchIntent = {
  id: 'L1',
  dir: '/h/lanes/r1-b',
  kind: 'worktree',
  repo: '/h/src',
  branch: 'r1/b',
  start: 'c0',
  at: 1,
}
const none: UndoFacts = { claimed: false, heldByLane: false, dirExists: false, entries: [], dirtyPaths: 0 }
const added: UndoFacts = {
  ...none,
  dirExists: true,
  entries: ['.git', 'README.md'],
  worktree: { branch: 'r1/b', locked: false },
  head: 'c0',
  branchTip: 'c0',
  launchFound: 'L1',
}
const removal = 'git -C /h/src worktree remove --force /h/lanes/r1-b && git -C /h/src branch -D r1/b'

test('planUndo: what a launch cut short made is taken back only when it is provably its own and unused', () => {
  const cases: [string, LaunchIntent, UndoFacts, ReturnType<typeof planUndo>][] = [
    ['the record was written: the launch finished', intent, { ...added, claimed: true }, { settled: true }],
    ['another lane holds the path', intent, { ...added, heldByLane: true }, { settled: true }],
    ['the worktree there names another launch', intent, { ...added, launchFound: 'L2' }, { settled: true }],
    ['killed before git ran', intent, none, { settled: true }],
    ['a clean worktree on its branch', intent, added, { settled: true, removeWorktree: 'plain', deleteBranch: 'r1/b' }],
    [
      'killed before its launch id was written',
      intent,
      { ...added, launchFound: undefined },
      { settled: true, removeWorktree: 'plain', deleteBranch: 'r1/b' },
    ],
    [
      'a checkout that never began: nothing but .git',
      intent,
      { ...added, entries: ['.git'], dirtyPaths: 40 },
      { settled: true, removeWorktree: 'force', deleteBranch: 'r1/b' },
    ],
    [
      'its directory deleted by hand',
      intent,
      { ...added, dirExists: false, entries: [] },
      { settled: true, removeWorktree: 'prune', deleteBranch: 'r1/b' },
    ],
    [
      'a detached worktree: no branch to delete',
      { ...intent, branch: undefined },
      { ...added, worktree: { locked: false } },
      { settled: true, removeWorktree: 'plain' },
    ],
    [
      'changed files',
      intent,
      { ...added, dirtyPaths: 2 },
      {
        settled: false,
        leftover: {
          detail: 'an interrupted launch left /h/lanes/r1-b: a worktree no lane record claims, with changes (2 paths)',
          fix: `keep what you need from it, then run: ${removal}`,
        },
      },
    ],
    [
      'git cannot read its status',
      intent,
      { ...added, dirtyPaths: undefined },
      {
        settled: false,
        leftover: {
          detail:
            'an interrupted launch left /h/lanes/r1-b: a worktree no lane record claims, whose status git cannot read',
          fix: `keep what you need from it, then run: ${removal}`,
        },
      },
    ],
    [
      'a commit made on its branch',
      intent,
      { ...added, head: 'c1', branchTip: 'c1' },
      {
        settled: false,
        leftover: {
          detail: 'an interrupted launch left /h/lanes/r1-b: a worktree no lane record claims, with commits made in it',
          fix: `keep what you need from it and from r1/b, then run: ${removal}`,
        },
      },
    ],
    [
      'locked',
      intent,
      { ...added, worktree: { branch: 'r1/b', locked: true } },
      {
        settled: false,
        leftover: {
          detail: 'an interrupted launch left /h/lanes/r1-b: a locked worktree no lane record claims',
          fix: `keep what you need from it, then run: git -C /h/src worktree unlock /h/lanes/r1-b && ${removal}`,
        },
      },
    ],
    [
      'an empty play directory',
      { id: 'L1', dir: '/h/lanes/r1-p-play-i1', kind: 'play', at: 1 },
      { ...none, dirExists: true },
      { settled: true, removeDir: true },
    ],
    [
      'a play directory with files',
      { id: 'L1', dir: '/h/lanes/r1-p-play-i1', kind: 'play', at: 1 },
      { ...none, dirExists: true, entries: ['notes.txt'] },
      {
        settled: false,
        leftover: {
          detail: 'an interrupted launch left /h/lanes/r1-p-play-i1: a directory no lane record claims, not empty',
          fix: 'keep what you need from it, then remove it: rm -r /h/lanes/r1-p-play-i1',
        },
      },
    ],
  ]
  for (const [what, i, f, want] of cases) assert.equal(planUndo(i, f), want, what)
})

test('optionLikeRef: a --from, --at or --branch starting with - is refused before git sees it', () => {
  const cases: [Parameters<typeof optionLikeRef>[0], string | undefined][] = [
    [{ from: 'origin/main', at: 'HEAD~1', branch: 'r1/x-y' }, undefined],
    [{ from: '--lock' }, "--from --lock: a ref never starts with '-'; give a branch, tag or commit"],
    [{ at: '-q' }, "--at -q: a ref never starts with '-'; give a branch, tag or commit"],
    [{ branch: '--orphan' }, "--branch --orphan: a branch name never starts with '-'"],
    [
      { from: '--upload-pack=touch /x\nmore' },
      "--from --upload-pack=touch /x\\nmore: a ref never starts with '-'; give a branch, tag or commit",
    ],
  ]
  for (const [req, want] of cases) assert.is(optionLikeRef(req), want, JSON.stringify(req))
})

test('reusableDirectory and pathFree (SPEC.md 4.1 start): --reuse needs the earlier directory; a new one is never taken over', () => {
  const gone = refuse(
    'conflict',
    'refused: the directory /l/r1-b of conv 7 is gone (reaped?); start a new iteration instead',
  )
  const reuse: [string, { reaped: boolean; exists: boolean; reaping?: boolean }, unknown][] = [
    ['there, not reaped', { reaped: false, exists: true }, ALLOWED],
    ['reaped with --keep: still there, but reaped', { reaped: true, exists: true }, gone],
    ['removed by hand', { reaped: false, exists: false }, gone],
    ['reaped and gone', { reaped: true, exists: false }, gone],
    [
      'a reap at work there',
      { reaped: false, exists: true, reaping: true },
      refuse('conflict', 'refused: the directory /l/r1-b of conv 7 is being reaped; start a new iteration instead'),
    ],
  ]
  for (const [name, f, want] of reuse) assert.equal(reusableDirectory('/l/r1-b', '7', f), want, name)
  const taken = refuse('conflict', 'refused: /l/r1-b already exists; reap the lane that used it or move it away')
  const fresh: [string, { exists: boolean; interrupted: boolean }, unknown][] = [
    ['nothing there', { exists: false, interrupted: false }, ALLOWED],
    ['something there', { exists: true, interrupted: false }, taken],
    ['left by a launch cut short', { exists: true, interrupted: true }, ALLOWED],
  ]
  for (const [name, f, want] of fresh) assert.equal(pathFree('/l/r1-b', f), want, name)
})

test.run()
