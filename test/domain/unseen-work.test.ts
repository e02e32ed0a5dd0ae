import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  dirtyFlagged,
  formatBytes,
  someOf,
  hiddenByAgent,
  isFlagged,
  launchIgnoreRules,
  leftOutNote,
  leftOutOf,
  rulesFromTop,
  type FlaggedEntry,
} from '../../kernel/domain/unseen-work.js'

// Work git status does not show (issue 16 items 1 and 18): which flagged entries hold edits, the ignore rules the
// branch had at launch, what they leave out.

test('isFlagged: assume-unchanged (lower case) and skip-worktree (S, s) tags; plain entries are not', () => {
  const table: [string, boolean][] = [
    ['H', false],
    ['M', false],
    ['C', false],
    ['h', true],
    ['S', true],
    ['s', true],
    ['m', true],
  ]
  for (const [tag, flagged] of table) assert.is(isFlagged(tag), flagged, tag)
})

test('dirtyFlagged: a file whose bytes or mode differ from its entry is dirty whatever its flags; an absent one is a deletion unless a sparse checkout left it out', () => {
  const e = (tag: string, disk?: { mode: string; blob: string }): FlaggedEntry => ({
    path: `${tag}-${disk ? disk.mode + disk.blob : 'absent'}`,
    tag,
    mode: '100644',
    blob: 'aaa',
    disk,
  })
  const table: [FlaggedEntry, boolean, boolean][] = [
    // entry, sparse, dirty
    [e('h', { mode: '100644', blob: 'aaa' }), false, false],
    [e('h', { mode: '100644', blob: 'bbb' }), false, true],
    [e('h', { mode: '100755', blob: 'aaa' }), false, true],
    [e('S', { mode: '100644', blob: 'bbb' }), true, true],
    [e('S', { mode: '120000', blob: 'aaa' }), true, true],
    [e('s', { mode: '040000', blob: '' }), false, true],
    [e('S', { mode: '100644', blob: 'aaa' }), true, false],
    [e('h'), false, true],
    [e('h'), true, true],
    [e('S'), true, false],
    [e('s'), true, false],
    [e('S'), false, true],
  ]
  for (const [entry, sparse, dirty] of table)
    assert.equal(dirtyFlagged([entry], sparse), dirty ? [entry.path] : [], `${entry.path} sparse=${sparse}`)
})

test('rulesFromTop: patterns of a nested .gitignore rewritten to mean the same from the top', () => {
  const table: [string, string, string[]][] = [
    ['', 'node_modules/\n# comment\n\n!keep.log\n*.log\n', ['node_modules/', '!keep.log', '*.log']],
    ['a/b', '*.o\n', ['a/b/**/*.o']],
    ['a/b', 'build/\n', ['a/b/**/build/']],
    ['a/b', '/top.txt\n', ['a/b/top.txt']],
    ['a/b', 'x/y\n', ['a/b/x/y']],
    ['a/b', 'x/y/\n', ['a/b/x/y/']],
    ['a/b', '**/deep\n', ['a/b/**/deep']],
    ['a/b', '!keep.o\n', ['!a/b/**/keep.o']],
    ['a/b', '!/x/y\n', ['!a/b/x/y']],
    ['a/b', 'trail   \n', ['a/b/**/trail']],
    ['a/b', 'esc\\ \n', ['a/b/**/esc\\ ']],
    ['a/b', 'crlf\r\n', ['a/b/**/crlf']],
    ['a/b', '\\#hash\n', ['a/b/**/\\#hash']],
    ['we*rd [dir]?', '*\n', ['we\\*rd \\[dir]\\?/**/*']],
    ['#dir', 'x\n', ['\\#dir/**/x']],
    ['!dir/sub', 'x\n', ['\\!dir/sub/**/x']],
    ['a', '   \n#c\n', []],
  ]
  for (const [dir, text, out] of table) assert.equal(rulesFromTop({ dir, text }), out, JSON.stringify([dir, text]))
})

test('launchIgnoreRules: global, then info/exclude unless written after the launch, then .gitignore files parents first', () => {
  const files = [
    { dir: 'a/b', text: '!keep\n' },
    { dir: '', text: 'keep\n' },
    { dir: 'a', text: 'x\n' },
  ]
  assert.is(
    launchIgnoreRules({ global: '*.swp\n', infoExclude: { text: 'secret\n', mtimeMs: 100 }, launchedAt: 100, files }),
    '*.swp\nsecret\nkeep\na/**/x\n!a/b/**/keep\n',
  )
  assert.is(
    launchIgnoreRules({ infoExclude: { text: 'secret\n', mtimeMs: 101 }, launchedAt: 100, files: [] }),
    '',
    'written after the launch: the lane wrote it',
  )
  assert.is(launchIgnoreRules({ launchedAt: 0, files: [] }), '')
  const info = { text: 'secret\n', mtimeMs: 150 }
  assert.is(
    launchIgnoreRules({ infoExclude: info, launchedAt: 200, worktreeMadeAt: 100, files: [] }),
    '',
    'written after the worktree was made, before a respawn in it',
  )
  assert.is(launchIgnoreRules({ infoExclude: info, launchedAt: 200, worktreeMadeAt: 150, files: [] }), 'secret\n')
  assert.is(
    launchIgnoreRules({ infoExclude: info, launchedAt: 100, worktreeMadeAt: 300, files: [] }),
    '',
    'the earlier of the two counts',
  )
})

test("hiddenByAgent: listed under the launch rules, not under today's", () => {
  assert.equal(hiddenByAgent(['a', 'notes/.gitignore', 'notes/x', 'z'], ['a', 'z']), ['notes/.gitignore', 'notes/x'])
  assert.equal(hiddenByAgent(['a'], ['a', 'b']), [])
  assert.equal(hiddenByAgent([], []), [])
})

test('someOf: at most so many by name, then how many more', () => {
  const table: [string[], number, string][] = [
    [[], 3, ''],
    [['a'], 3, 'a'],
    [['a', 'b', 'c'], 3, 'a, b, c'],
    [['a', 'b', 'c', 'd'], 3, 'a, b, c and 1 more'],
  ]
  for (const [items, shown, out] of table) assert.is(someOf(items, shown), out)
})

test('leftOutNote and formatBytes: what the reap left out, largest first, with sizes', () => {
  const table: [number, string][] = [
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1.0 kB'],
    [1234567, '1.2 MB'],
    [5e9, '5.0 GB'],
  ]
  for (const [n, s] of table) assert.is(formatBytes(n), s)
  assert.is(leftOutNote(leftOutOf([])), undefined)
  assert.is(
    leftOutNote(leftOutOf([{ path: 'node_modules/', bytes: 3000 }])),
    "note: left out 1 path the branch's ignore rules hide, 3.0 kB in all: node_modules/ (3.0 kB)",
  )
  const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((p, i) => ({ path: p, bytes: i * 10 }))
  assert.is(
    leftOutNote(leftOutOf(many, 2)),
    "note: left out 7 paths the branch's ignore rules hide, 210 B in all: g (60 B), f (50 B) and 5 more",
  )
})

test.run()
