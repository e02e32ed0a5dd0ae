import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ALLOWED, refuse } from '../../kernel/domain/refusal.js'
import {
  alreadyGoneWarning,
  archiveFailedMessage,
  countsAgainstReap,
  detachedKeptWarning,
  inReapOrder,
  keptHeadRef,
  nestedRepoRefusal,
  notYetReaped,
  parkedPatchName,
  parkedRef,
  planReap,
  processRefusal,
  playKeptWarning,
  reapRefusal,
  unpushedWarning,
  type ReapFacts,
  type ReapPlanFacts,
} from '../../kernel/domain/reap.js'

// SPEC.md 4.1 reap, steps 1-7: the refusals of steps 1-4 in order, the warnings and messages of steps 4-7, word for
// word.

const base: ReapFacts = {
  role: 'builder',
  dir: '/h/lanes/r1-b',
  dirReal: '/h/lanes/r1-b',
  rootReal: '/h/lanes',
  harnessAlive: false,
  processes: [],
  worktree: true,
  dirtyPaths: 0,
  park: false,
}

/** The message of a refusal (every reap refusal is a conflict), or undefined when the reap goes on. */
const refusalText = (d: ReturnType<typeof reapRefusal>) => {
  if (d.ok) return undefined
  assert.is(d.code, 'conflict')
  return d.message
}

test('reapRefusal: each refusal, and the first in step order wins', () => {
  assert.is(refusalText(reapRefusal(base, 30)), undefined)
  const all: ReapFacts = {
    ...base,
    harnessAlive: true,
    dirReal: '/elsewhere/r1-b',
    processes: [{ pid: 7, command: 'sleep 9', cwdInside: true, files: [] }],
    worktree: false,
    locked: 'x',
    dirtyPaths: 2,
  }
  assert.is(refusalText(reapRefusal(all, 30)), 'refused: the harness is still alive after 30 s')
  assert.is(
    refusalText(reapRefusal({ ...all, harnessAlive: false }, 30)),
    'refused: /elsewhere/r1-b is outside the lanes root /h/lanes',
  )
  assert.is(
    refusalText(reapRefusal({ ...base, dirReal: '/h/lanes' }, 30)),
    'refused: /h/lanes is outside the lanes root /h/lanes',
    'the root itself is not a lane directory',
  )
  assert.is(
    refusalText(reapRefusal({ ...base, dirReal: '/h/lanes-other/x' }, 30)),
    'refused: /h/lanes-other/x is outside the lanes root /h/lanes',
    'a sibling sharing the prefix',
  )
  assert.is(
    refusalText(reapRefusal({ ...all, harnessAlive: false, dirReal: '/h/lanes/r1-c' }, 30)),
    "refused: /h/lanes/r1-b resolves to /h/lanes/r1-c, which is not this lane's directory",
  )
  assert.is(
    refusalText(reapRefusal({ ...all, harnessAlive: false, dirReal: base.dirReal }, 30)),
    'refused: a process has its working directory inside /h/lanes/r1-b: 7 (sleep 9)',
  )
  const notWorktree = 'refused: /h/lanes/r1-b is no longer a git worktree; look at it, then remove it yourself'
  assert.is(
    refusalText(reapRefusal({ ...all, harnessAlive: false, dirReal: base.dirReal, processes: [] }, 30)),
    notWorktree,
    'before the lock and the changes',
  )
  assert.is(
    refusalText(reapRefusal({ ...base, role: 'play', worktree: false }, 30)),
    undefined,
    'a play directory is no worktree',
  )
  assert.is(refusalText(reapRefusal({ ...base, worktree: false, dirReal: undefined }, 30)), undefined)
  assert.is(
    refusalText(reapRefusal({ ...base, locked: '', dirtyPaths: 1 }, 30)),
    'refused: the worktree /h/lanes/r1-b is locked (no reason given); unlock it with git worktree unlock once ' +
      'nothing is using it',
  )
  assert.is(
    refusalText(reapRefusal({ ...base, locked: 'initializing' }, 30)),
    'refused: the worktree /h/lanes/r1-b is locked (initializing); unlock it with git worktree unlock once nothing ' +
      'is using it',
  )
  const two = [
    { pid: 90, command: 'b', cwdInside: true, files: [] },
    { pid: 12, command: '', cwdInside: true, files: [] },
  ]
  assert.is(
    refusalText(reapRefusal({ ...base, processes: two }, 30)),
    'refused: 2 processes have their working directory inside /h/lanes/r1-b: 12 (?), 90 (b)',
  )
  assert.is(
    refusalText(reapRefusal({ ...base, dirtyPaths: 1 }, 30)),
    'refused: /h/lanes/r1-b has uncommitted changes (1 path); commit them, or pass --park to save them to a patch',
  )
  assert.is(refusalText(reapRefusal({ ...base, dirtyPaths: 3, park: true }, 30)), undefined)
  assert.is(
    refusalText(reapRefusal({ ...base, dirReal: undefined, dirtyPaths: 3 }, 30)),
    undefined,
    'a directory already gone refuses nothing',
  )
})

test('processRefusal: working directories first, then processes holding files open; each listed by pid with its files', () => {
  const p = (pid: number, command: string, cwdInside: boolean, files: string[] = []) => ({
    pid,
    command,
    cwdInside,
    files,
  })
  const d = '/h/lanes/r1-b'
  const table: [ReturnType<typeof p>[], string | undefined][] = [
    [[], undefined],
    [[p(5, 'x', false)], undefined],
    [
      [p(9, 'tail -f log', false, [`${d}/log`])],
      `refused: a process holds files open inside ${d}: 9 (tail -f log) holding ${d}/log`,
    ],
    [
      [p(9, '', false, [`${d}/b`, `${d}/a`, `${d}/d`, `${d}/c`]), p(3, 'w', false, [`${d}/x`])],
      `refused: 2 processes hold files open inside ${d}: 3 (w) holding ${d}/x; 9 (?) holding ${d}/a, ${d}/b, ${d}/c ` +
        `and 1 more`,
    ],
    [
      [p(9, 'w', false, [`${d}/x`]), p(4, 'sh', true, [`${d}/y`])],
      `refused: a process has its working directory inside ${d}: 4 (sh); a process holds files open inside ${d}: 9 ` +
        `(w) holding ${d}/x`,
    ],
  ]
  for (const [ps, out] of table) assert.is(processRefusal(d, ps), out, JSON.stringify(ps))
  assert.is(
    refusalText(reapRefusal({ ...base, processes: [p(9, 'w', false, [`${d}/x`])], dirtyPaths: 1 }, 30)),
    `refused: a process holds files open inside ${d}: 9 (w) holding ${d}/x`,
    'before the dirty tree',
  )
})

test('reapRefusal: a leftover index lock refuses a park, after the dirty tree; the dirty paths git status hides are named', () => {
  const lock = '/h/repo/.git/worktrees/r1-b/index.lock'
  const locked =
    `refused: ${lock} exists, so git cannot change the worktree; if no git command is running in ` +
    `/h/lanes/r1-b, remove that file and reap again`
  assert.is(refusalText(reapRefusal({ ...base, indexLock: lock, dirtyPaths: 2, park: true }, 30)), locked)
  assert.is(
    refusalText(reapRefusal({ ...base, indexLock: lock }, 30)),
    undefined,
    'a clean tree is not cleaned: git removes it all the same',
  )
  assert.match(
    refusalText(reapRefusal({ ...base, indexLock: lock, dirtyPaths: 1 }, 30))!,
    /has uncommitted changes \(1 path\); commit them, or pass --park/,
    'without --park: the dirty tree first',
  )
  assert.match(
    refusalText(reapRefusal({ ...base, indexLock: lock, locked: 'x', dirtyPaths: 1, park: true }, 30))!,
    /is locked \(x\)/,
  )
  const dirty = (n: number, unseen: string[]) =>
    refusalText(reapRefusal({ ...base, dirtyPaths: n, unseenPaths: unseen }, 30))
  assert.is(
    dirty(1, ['README.md']),
    'refused: /h/lanes/r1-b has uncommitted changes (1 path, 1 of them hidden from git status: README.md); commit ' +
      'them, or pass --park to save them to a patch',
  )
  assert.is(
    dirty(6, ['e', 'a', 'c', 'b']),
    'refused: /h/lanes/r1-b has uncommitted changes (6 paths, 4 of them hidden from git status: a, b, c and 1 ' +
      'more); commit them, or pass --park to save them to a patch',
  )
  assert.is(
    dirty(2, []),
    'refused: /h/lanes/r1-b has uncommitted changes (2 paths); commit them, or pass --park to save them to a patch',
  )
})

// planReap: the reap as data. Before the stop: the stop and a second look; after it, the steps in SPEC.md's order and
// what is kept; a refusal at either look, with nothing planned.
const after: ReapPlanFacts = {
  ...base,
  conv: { id: '7', name: 'r1-b' },
  stopped: true,
  branch: 'r1/b',
  repo: '/h/src',
  keep: false,
  limitS: 30,
}
const plan = (f: Partial<ReapPlanFacts>) => {
  const d = planReap({ ...after, ...f })
  return d.ok ? { steps: d.steps, kept: d.kept } : { refused: d.message }
}
const LAST = [{ do: 'record-reaped' }, { do: 'archive' }]

test('planReap: before the stop, the plan is the stop and a second look; what refuses before it refuses then', () => {
  assert.equal(plan({ stopped: false }), { steps: [{ do: 'stop' }, { do: 'look-again' }], kept: [] })
  assert.equal(plan({ stopped: false, dirtyPaths: 2 }), {
    refused:
      'refused: /h/lanes/r1-b has uncommitted changes (2 paths); commit them, or pass --park to save them to a patch',
  })
  assert.equal(plan({ stopped: false, conv: { id: '7', name: 'r1-b', archived: { at: 1 } } }), {
    refused: 'refused: conv 7 (r1-b) is already reaped and archived',
  })
})

test('planReap: the refusals in order: archived, then a directory not its own, then steps 1-4', () => {
  const notOwn = refuse('conflict', 'refused: /h/lanes/r1-b is not the directory this lane was launched in')
  const archived = { id: '7', name: 'r1-b', archived: { at: 1 } }
  assert.equal(plan({ conv: archived, notOwn, harnessAlive: true }), {
    refused: 'refused: conv 7 (r1-b) is already reaped and archived',
  })
  assert.equal(plan({ notOwn, harnessAlive: true }), { refused: notOwn.message })
  assert.equal(plan({ harnessAlive: true, limitS: 2 }), { refused: 'refused: the harness is still alive after 2 s' })
  assert.equal(plan({ dirtyPaths: 1, indexLock: '/h/x/index.lock', park: true }), {
    refused:
      'refused: /h/x/index.lock exists, so git cannot change the worktree; if no git command is running in ' +
      '/h/lanes/r1-b, remove that file and reap again',
  })
})

test('planReap: a clean builder: left-out files named, commits kept, the worktree removed from its repository, recorded, archived', () => {
  assert.equal(plan({}), {
    steps: [
      { do: 'name-left-out' },
      { do: 'keep-commits', branch: 'r1/b' },
      { do: 'remove-worktree', repo: '/h/src' },
      ...LAST,
    ],
    kept: [{ what: 'branch', name: 'r1/b' }],
  })
  assert.equal(
    plan({ repo: undefined }).steps?.[2],
    { do: 'remove-worktree', repo: '/h/lanes/r1-b' },
    'no repo recorded',
  )
  assert.equal(plan({ keep: true }).steps?.slice(-1), [{ do: 'record-reaped' }], '--keep archives nothing')
})

test('planReap: a dirty tree with --park is parked after the left-out files are named and before anything is removed', () => {
  assert.equal(plan({ dirtyPaths: 3, park: true }), {
    steps: [
      { do: 'name-left-out' },
      { do: 'park', paths: 3 },
      { do: 'keep-commits', branch: 'r1/b' },
      { do: 'remove-worktree', repo: '/h/src' },
      ...LAST,
    ],
    kept: [
      { what: 'parked-work', paths: 3 },
      { what: 'branch', name: 'r1/b' },
    ],
  })
})

test("planReap: a detached HEAD's commits are kept at the lane's ref; a critic's worktree is reaped as a builder's", () => {
  const detached = plan({ role: 'critic', branch: undefined })
  assert.equal(detached.steps?.[1], { do: 'keep-commits' })
  assert.equal(detached.kept, [{ what: 'detached-head', ref: 'refs/svc/kept/r1-b' }])
})

test('planReap: a play directory is removed, unless it holds a .git: then it is kept, with the warning', () => {
  const play = { role: 'play' as const, worktree: false, branch: undefined, repo: undefined }
  assert.equal(plan(play), { steps: [{ do: 'remove-directory' }, ...LAST], kept: [] })
  assert.equal(plan({ ...play, dotGit: 'sub/.git' }), {
    steps: [
      { do: 'warn', message: 'warning: /h/lanes/r1-b holds a .git (sub/.git); the play directory is kept' },
      ...LAST,
    ],
    kept: [{ what: 'directory', path: '/h/lanes/r1-b' }],
  })
})

test('planReap: a directory already gone: a warning, the worktree list pruned; one an earlier reap removed and that is back is left alone', () => {
  assert.equal(plan({ dirReal: undefined, worktree: false }), {
    steps: [
      { do: 'warn', message: 'warning: /h/lanes/r1-b was already gone' },
      { do: 'prune', repo: '/h/src' },
      ...LAST,
    ],
    kept: [],
  })
  const kept = { id: '7', name: 'r1-b', reaped: { at: 1 } }
  assert.equal(plan({ dirReal: undefined, worktree: false, conv: kept, reappeared: true }), {
    steps: [
      {
        do: 'warn',
        message:
          "warning: /h/lanes/r1-b was removed by an earlier reap; what is there now is not this lane's and was left " +
          'alone',
      },
      { do: 'prune', repo: '/h/src' },
      { do: 'archive' },
    ],
    kept: [{ what: 'directory', path: '/h/lanes/r1-b' }],
  })
  assert.equal(plan({ role: 'play', dirReal: undefined, worktree: false, repo: undefined }).steps, [
    { do: 'warn', message: 'warning: /h/lanes/r1-b was already gone' },
    ...LAST,
  ])
})

test('countsAgainstReap: before the stop, what the stop will end does not count; after it, everything does', () => {
  const lane = { runnerPid: 100, harnessPid: 120 }
  assert.is(countsAgainstReap({ pid: 300, pgid: 300 }, false, lane), true, 'a process of another group')
  assert.is(countsAgainstReap({ pid: 101, pgid: 100 }, false, lane), false, "in the runner's group")
  assert.is(countsAgainstReap({ pid: 120, pgid: 120 }, false, lane), false, 'the harness itself')
  assert.is(
    countsAgainstReap({ pid: 130, pgid: 120 }, false, lane),
    true,
    "the harness's own group, when it is not the runner's",
  )
  assert.is(countsAgainstReap({ pid: 300 }, false, lane), false, 'group unknown: left to the check after the stop')
  assert.is(countsAgainstReap({ pid: 300, pgid: 300 }, false, {}), true, 'a lane with no runner recorded')
  for (const p of [{ pid: 300, pgid: 300 }, { pid: 101, pgid: 100 }, { pid: 120, pgid: 120 }, { pid: 300 }])
    assert.is(countsAgainstReap(p, true, lane), true)
})

test('messages of steps 5 and 7, and the parked file name', () => {
  assert.is(playKeptWarning('/h/lanes/p', '.git'), 'warning: /h/lanes/p holds a .git; the play directory is kept')
  assert.is(
    playKeptWarning('/h/lanes/p', 'sub/repo/.git'),
    'warning: /h/lanes/p holds a .git (sub/repo/.git); the play directory is kept',
  )
  assert.is(alreadyGoneWarning('/h/lanes/b'), 'warning: /h/lanes/b was already gone')
  assert.is(unpushedWarning('r1/b', 0), undefined)
  assert.is(unpushedWarning('r1/b', 1), 'warning: r1/b has 1 commit not on any remote; the branch is kept')
  assert.is(unpushedWarning('r1/b', 3), 'warning: r1/b has 3 commits not on any remote; the branch is kept')
  assert.is(
    archiveFailedMessage('disk full', '12'),
    'reaped, but archiving failed: disk full; archive conv 12 from the Command Deck',
  )
  assert.is(parkedPatchName(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 67))), 'parked-20250102T030405067Z.patch')
})

test('what a park and a detached HEAD keep (steps 4 and 5): the refs, and the refusal of work a patch cannot carry', () => {
  const rows: [string, string, string][] = [
    [
      'one detached commit',
      detachedKeptWarning(1, 'refs/svc/kept/n'),
      'warning: the detached HEAD has 1 commit no branch holds; kept at refs/svc/kept/n',
    ],
    [
      'two detached commits',
      detachedKeptWarning(2, 'refs/svc/kept/n'),
      'warning: the detached HEAD has 2 commits no branch holds; kept at refs/svc/kept/n',
    ],
    ['the kept HEAD ref', keptHeadRef('r1-b-critic-i1'), 'refs/svc/kept/r1-b-critic-i1'],
    [
      'the parked ref, named after its patch',
      parkedRef('12', 'parked-20250102T030405067Z.patch'),
      'refs/svc/parked/12/20250102T030405067Z',
    ],
  ]
  for (const [name, got, want] of rows) assert.is(got, want, name)
  const nested: [string, string[], unknown][] = [
    ['no nested repository', [], ALLOWED],
    [
      'one nested repository',
      ['vendor/x'],
      refuse(
        'conflict',
        'refused: a patch cannot carry the files of a git repository inside the worktree: vendor/x; move it out of ' +
          '/h/lanes/b first',
      ),
    ],
    [
      'two',
      ['a', 'b'],
      refuse(
        'conflict',
        'refused: a patch cannot carry the files of a git repository inside the worktree: a, b; move them out of ' +
          '/h/lanes/b first',
      ),
    ],
  ]
  for (const [name, paths, want] of nested) assert.equal(nestedRepoRefusal('/h/lanes/b', paths), want, name)
})

test('notYetReaped: a lane reaped and archived is refused another reap, naming it; one not archived may be reaped', () => {
  assert.equal(notYetReaped({ id: '12', name: 'r1-b-builder-i1' }), ALLOWED)
  assert.equal(
    notYetReaped({ id: '12', name: 'r1-b-builder-i1', archived: { at: 5 } }),
    refuse('conflict', 'refused: conv 12 (r1-b-builder-i1) is already reaped and archived'),
  )
})

test('inReapOrder (SPEC.md 4.1 reap: builders before the orchestrator that launched them): work, judges, then the orchestrator; one role keeps its order', () => {
  const lanes = [
    { id: '1', role: 'orchestrator' },
    { id: '2', role: 'verifier' },
    { id: '3', role: 'builder' },
    { id: '4', role: 'play' },
    { id: '5', role: 'critic' },
    { id: '6', role: 'builder' },
  ]
  assert.equal(
    inReapOrder(lanes).map((l) => l.id),
    ['3', '6', '5', '2', '4', '1'],
  )
  assert.equal(
    lanes.map((l) => l.id),
    ['1', '2', '3', '4', '5', '6'],
    'the list given is left as it was',
  )
})

test.run()
