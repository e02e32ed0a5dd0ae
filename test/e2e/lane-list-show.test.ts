import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git, until } from '../helpers/home.js'
import { buildAndReport } from '../helpers/project.js'
import { groupMembers } from '../../kernel/io/procs.js'
import { procPidIn } from '../../kernel/io/pid-namespace.js'
import { World, alive } from './lane-views-kit.js'

// `svc lane list`, `show`, `stop` and the messaging rule (SPEC.md 4.1 list/show/stop, 4.2, section 3).

let w: World
test.before.each(async () => {
  w = await new World('views').begin()
})
test.after.each(async () => {
  await w.stop()
})

const sha7 = (dir: string) => git(dir, 'rev-parse', '--short=7', 'HEAD')
const list = async (...args: string[]) => w.h.ok(['lane', 'list', ...args])
const listJson = async (...args: string[]): Promise<any[]> =>
  JSON.parse(await w.h.ok(['lane', 'list', '--json', ...args]))
const verdictFile = (name: string, defects: number) => {
  const p = join(w.h.home, `${name}.json`)
  writeFileSync(p, JSON.stringify({ defects: Array.from({ length: defects }, (_, i) => ({ what: `d${i}` })) }))
  return p
}
const HEADER =
  'ID  RUN/KEY  ROLE     ITER  ACTIVITY  REPORT  FOR   VERDICT    BRANCH@SHA          AHEAD  DIRTY  MODEL          COST'

test('list: the columns in order, aligned; FOR, VERDICT (a builder shows its critic verdict), git facts, archived lanes; --run and --parent filter', async () => {
  const b = join(w.lanes, 'r1-b')
  const c = join(w.lanes, 'r1-c')
  await w.start([
    '--key',
    'b',
    '--role',
    'builder',
    '--prompt',
    buildAndReport('built') +
      `${w.mark('b1')}\n${w.gate('b')}\necho more > more.txt; git add more.txt; git commit -qm more; git push -q ` +
      `2>/dev/null\n${w.mark('b2')}\n${w.gate('end')}`,
  ])
  await w.waited('r1-b-builder-i1')
  await w.start([
    '--for',
    'b',
    '--role',
    'critic',
    '--prompt',
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${verdictFile('v2', 2)} <<<'two'\n${w.gate('end')}`,
  ])
  await w.waited('r1-b-critic-i1')
  const cScript = [
    'echo x > x.txt; git add x.txt; git commit -qm x; git push -q -u origin HEAD 2>/dev/null',
    'echo y > y.txt; git add y.txt; git commit -qm y',
    'echo z > z.txt; git add z.txt; git commit -qm z',
    'echo dirty >> README.md',
    w.mark('c'),
    w.gate('end'),
  ].join('\n')
  await w.start(['--key', 'c', '--role', 'builder', '--prompt', cScript])
  await w.reached('c')
  const root2 = (await w.h.ok(['conv', 'new', '--harness', 'none', '--project', 'sample'])).trim()
  const play = await w.start(['--key', 'p', '--role', 'play', '--prompt', 'echo hi > f'], 'r2', root2)
  await w.waited(play).catch(() => '')
  await w.h.ok(['lane', 'reap', play])

  const critic = join(w.lanes, 'r1-b-critic-i1')
  const expected = [
    HEADER,
    `2   r1/b     builder  i1    working   done    -     NOT_YET 2  r1/b@${sha7(b)}        0      no     ` +
      `model-builder  -`,
    `3   r1/b     critic   i1    working   done    b i1  NOT_YET 2  (detached)@${sha7(critic)}  -      no     ` +
      `model-critic   -`,
    `4   r1/c     builder  i1    working   -       -     -          r1/c@${sha7(c)}        2      yes    ` +
      `model-builder  -`,
    `6   r2/p     play     i1    archived  -       -     -          -                   -      -      model-play     -`,
  ]
  // The first list follows lane c's last write (to README.md, in place: no commit, no stamp change) at once, as a
  // person's does: from a program of its own. An edit in place is seen through the kernel's watcher, and a list from
  // this process's dispatch, within a moment of the write, was once answered before the watcher had (dirty false at
  // load 17).
  assert.is(await w.h.ok(['lane', 'list'], { here: false }), expected.join('\n') + '\n')
  assert.is(
    await list('--run', 'r2'),
    'ID  RUN/KEY  ROLE  ITER  ACTIVITY  REPORT  FOR  VERDICT  BRANCH@SHA  AHEAD  DIRTY  MODEL       COST\n' +
      '6   r2/p     play  i1    archived  -       -    -        -           -      -      model-play  -\n',
    'each column as wide as its widest cell',
  )
  assert.is(await list('--parent', root2), await list('--run', 'r2'))
  assert.is(await list('--parent', w.s.root), [HEADER, ...expected.slice(1, 4)].join('\n') + '\n')
  assert.is(
    await list('--run', 'r1', '--parent', `conv-c${root2}`),
    HEADER.replace(/ +/g, '  ') + '\n',
    'no rows: the header alone',
  )
  const bad = await w.h.svc(['lane', 'list', '--run', 'R1'])
  assert.is(bad.code, 1)
  assert.is(bad.stderr, "svc: invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$\n")

  // --json: every field of SPEC.md section 2, activity with its evidence, the verdict and whether it is stale.
  const judged = git(b, 'rev-parse', 'HEAD')
  const rows = await listJson()
  const [rb, rc, rcc, rp] = rows
  assert.equal(
    rows.map((r) => r.id),
    ['2', '3', '4', '6'],
  )
  assert.equal(
    {
      id: rb.id,
      name: rb.name,
      parent: rb.parent,
      run: rb.run,
      key: rb.key,
      role: rb.role,
      iteration: rb.iteration,
      model: rb.model,
      branch: rb.branch,
      archived: rb.archived,
    },
    {
      id: '2',
      name: 'r1-b-builder-i1',
      parent: w.s.root,
      run: 'r1',
      key: 'b',
      role: 'builder',
      iteration: 1,
      model: 'model-builder',
      branch: 'r1/b',
      archived: false,
    },
  )
  assert.is(rb.activity, 'working')
  assert.is(rb.evidence.source, 'process start')
  assert.type(rb.evidence.at, 'number')
  assert.equal([rb.report.seq, rb.report.status], [1, 'done'])
  assert.equal(rb.verdict, {
    value: 'NOT_YET',
    defects: 2,
    by: '3',
    file: join(w.convDir('r1-b-critic-i1'), 'verdict.json'),
    judged,
    stale: false,
  })
  assert.equal(
    [rb.git.branch, rb.git.head, rb.git.upstream, rb.git.ahead, rb.git.dirty],
    ['r1/b', judged, 'origin/r1/b', 0, false],
  )
  assert.equal(rc.for, { id: '2', key: 'b', iteration: 1, sha: judged })
  assert.equal(rc.verdict, rb.verdict)
  assert.equal([rc.git.branch, rc.git.head, rc.git.dirty], [undefined, judged, false])
  assert.equal(
    [rcc.git.branch, rcc.git.ahead, rcc.git.dirty, rcc.report, rcc.verdict],
    ['r1/c', 2, true, undefined, undefined],
  )
  assert.equal([rp.archived, rp.activity, rp.evidence.source, rp.git], [true, 'stopped', 'archive', undefined])
  assert.equal(
    (await listJson('--run', 'r2')).map((r) => r.id),
    ['6'],
  )

  // The builder moves past the judged commit: the verdict is stale, on the critic's row and on the builder's.
  w.open('b')
  await w.reached('b2')
  const moved = await until(async () => {
    const [b2, c2] = (await (await w.h.port()).laneList({ run: 'r1' })) as any[]
    return b2.git.head !== judged && b2.verdict.stale && c2.verdict.stale && [b2, c2]
  }, 'a stale verdict')
  assert.is(moved[0].git.head, git(b, 'rev-parse', 'HEAD'))
  assert.is(moved[0].verdict.judged, judged)
  assert.match(await list('--run', 'r1'), `r1/b@${sha7(b)}`)
  w.open('end')
})

test('list reads git facts without taking the index lock: a worktree whose index a plain git status would refresh is left alone', async () => {
  await w.start(['--key', 'c', '--role', 'builder', '--prompt', `${w.mark('c')}\n${w.gate('end')}`])
  await w.reached('c')
  const dir = join(w.lanes, 'r1-c')
  const index = git(dir, 'rev-parse', '--git-path', 'index')
  const indexPath = index.startsWith('/') ? index : join(dir, index)
  await list()
  const future = new Date(Date.now() + 5000)
  utimesSync(join(dir, 'README.md'), future, future) // same bytes, new stat: a refresh would rewrite the index
  writeFileSync(join(dir, 'new.txt'), 'n\n') // changes the top directory, so the facts are read afresh
  const before = statSync(indexPath)
  const rows = await listJson()
  assert.equal([rows[0].git.dirty, rows[0].git.branch], [true, 'r1/c'])
  assert.ok(!existsSync(indexPath + '.lock'))
  const after = statSync(indexPath)
  assert.equal([after.ino, after.mtimeMs], [before.ino, before.mtimeMs], 'the index was not rewritten')
  git(dir, 'status', '--porcelain')
  assert.not.equal(statSync(indexPath).mtimeMs, before.mtimeMs, 'control: a plain git status does rewrite it')
  w.open('end')
})

test('show: the chain of a builder and its critics, then one line per lane; from any lane of the chain (id, name, conv-<name>) or --run --key', async () => {
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built 1')])
  await w.waited('r1-b-builder-i1')
  await w.start([
    '--for',
    'b',
    '--role',
    'critic',
    '--prompt',
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${verdictFile('v2', 2)} <<<'two'`,
  ])
  await w.waited('r1-b-critic-i1')
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built 2', 'work2.txt')])
  await w.waited('r1-b-builder-i2')
  await w.start([
    '--for',
    'b',
    '--role',
    'critic',
    '--prompt',
    `svc lane report --stdin --verdict WOWED --verdict-file ${verdictFile('v0', 0)} <<<'none'`,
  ])
  await w.waited('r1-b-critic-i2')
  await w.start(['--key', 'other', '--role', 'builder', '--prompt', `${w.gate('end')}`])
  for (const n of ['r1-b-builder-i1', 'r1-b-builder-i2', 'r1-b-critic-i1', 'r1-b-critic-i2'])
    await until(async () => (await w.conv(n)).activity === 'stopped', `${n} stopped`)
  const f1 = join(w.convDir('r1-b-critic-i1'), 'verdict.json')
  const f2 = join(w.convDir('r1-b-critic-i2'), 'verdict.json')
  const expected =
    [
      'i1 built → critic c1: NOT_YET (2 defects) → i2 built → critic c2: WOWED (0 defects)',
      `#2 builder i1 stopped NOT_YET ${f1}`,
      `#3 critic i1 stopped NOT_YET ${f1}`,
      `#4 builder i2 stopped WOWED ${f2}`,
      `#5 critic i2 stopped WOWED ${f2}`,
    ].join('\n') + '\n'
  for (const args of [
    ['r1-b-builder-i1'],
    ['5'],
    ['conv-r1-b-critic-i1'],
    ['r1-b-builder-i2'],
    ['--run', 'r1', '--key', 'b'],
  ]) {
    const r = await w.h.svc(['lane', 'show', ...args])
    assert.is(r.stdout, expected, args.join(' '))
    assert.is(r.code, 0)
  }
  const json = JSON.parse(await w.h.ok(['lane', 'show', '3', '--json']))
  assert.is(json.chain, expected.split('\n')[0])
  assert.equal(
    json.lanes.map((l: any) => [l.id, l.verdict?.value]),
    [
      ['2', 'NOT_YET'],
      ['3', 'NOT_YET'],
      ['4', 'WOWED'],
      ['5', 'WOWED'],
    ],
  )

  // A builder still at work; an archived lane says so.
  assert.is(await w.h.ok(['lane', 'show', 'r1-other-builder-i1']), 'i1 building\n#6 builder i1 working - -\n')
  await w.h.ok(['lane', 'reap', 'r1-b-critic-i1'])
  assert.match(await w.h.ok(['lane', 'show', '--run', 'r1', '--key', 'b']), `\n#3 critic i1 archived NOT_YET ${f1}\n`)

  const cases: [string[], string][] = [
    [['lane', 'show'], 'svc: show takes a lane, or --run with --key\n'],
    [['lane', 'show', '--run', 'r1'], 'svc: show takes a lane, or --run with --key\n'],
    [['lane', 'show', '2', '--run', 'r1', '--key', 'b'], 'svc: show takes a lane, or --run with --key, not both\n'],
    [['lane', 'show', '--run', 'r1', '--key', 'nope'], 'svc: no lanes r1/nope\n'],
    [
      ['lane', 'show', '--run', 'R1', '--key', 'b'],
      "svc: invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$\n",
    ],
    [
      ['lane', 'show', '--run', 'r1', '--key', '.b'],
      "svc: invalid lane key '.b': it must match ^[a-z0-9][a-z0-9._-]{0,39}$\n",
    ],
    [['lane', 'show', w.s.root], `svc: conv ${w.s.root} (c${w.s.root}) is not a lane\n`],
  ]
  for (const [args, stderr] of cases) {
    const r = await w.h.svc(args)
    assert.is(r.stderr, stderr, args.join(' '))
    assert.is(r.code, 1, args.join(' '))
  }
  w.open('end')
})

test('stop: through the conversation stop mechanism; the whole process group of the harness ends, a child in the background too', async () => {
  await w.start([
    '--key',
    's',
    '--role',
    'builder',
    '--prompt',
    `sleep 1000 & echo $! > ${w.h.home}/bg\n${w.mark('s')}\n${w.gate('never')}`,
  ])
  await w.reached('s')
  const st = w.state('r1-s-builder-i1')
  // The lane names the child by a pid of its runner's namespace where it has one of its own.
  const bg = procPidIn(Number(readFileSync(join(w.h.home, 'bg'), 'utf8')), st.runner.pid)!
  assert.ok(alive(bg) && alive(st.harness.pid) && groupMembers(st.runner.pid).length >= 3)
  const r = await w.h.svc(['lane', 'stop', 'conv-r1-s-builder-i1'])
  assert.equal(r, { code: 0, stdout: 'Lane r1/s builder i1 stopped: conv 2 (r1-s-builder-i1)\n', stderr: '' })
  assert.equal(groupMembers(st.runner.pid), [], 'no process of the group is left')
  assert.not.ok(alive(bg), 'the background child ended with it')
  assert.not.ok(alive(st.harness.pid))
  const v = await w.lane('2')
  assert.is(v.activity, 'stopped')
  assert.match(v.evidence.source, /^stop/)
  assert.is(existsSync(join(w.lanes, 'r1-s')), true, 'stop removes nothing')
  assert.equal(
    await w.h.svc(['lane', 'stop', '2']),
    { code: 0, stdout: 'Lane r1/s builder i1 stopped: conv 2 (r1-s-builder-i1)\n', stderr: '' },
    'stopping a stopped lane is no error',
  )
  const notLane = await w.h.svc(['lane', 'stop', w.s.root])
  assert.equal([notLane.code, notLane.stderr], [1, `svc: conv ${w.s.root} (c${w.s.root}) is not a lane\n`])
})

test('tell: refused for a critic or verifier that filed its done report, unless --force; a builder that reported done still hears', async () => {
  await w.start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('built') + `${w.gate('end')}`])
  await w.waited('r1-b-builder-i1')
  await w.start([
    '--for',
    'b',
    '--role',
    'critic',
    '--prompt',
    `${w.mark('c0')}\n${w.gate('c')}\nsvc lane report --stdin --verdict IMPRESSED --defects 1 <<<'ok'\n` +
      `${w.gate('end')}`,
  ])
  await w.start([
    '--key',
    'v',
    '--role',
    'verifier',
    '--prompt',
    `svc lane report --stdin --verdict PASS <<<'pass'\n${w.gate('end')}`,
  ])
  await w.reached('c0')
  const inbox = (name: string) =>
    existsSync(join(w.convDir(name), 'inbox.txt')) ? readFileSync(join(w.convDir(name), 'inbox.txt'), 'utf8') : ''

  assert.equal(await w.h.svc(['tell', 'conv-r1-b-critic-i1', 'before the verdict']), {
    code: 0,
    stdout: 'sent to conv 3 (r1-b-critic-i1)\n',
    stderr: '',
  })
  await until(() => inbox('r1-b-critic-i1').includes('before the verdict'), 'the first message')
  w.open('c')
  await w.waited('r1-b-critic-i1')
  await w.waited('r1-v-verifier-i1')

  const refused = await w.h.svc(['tell', 'conv-r1-b-critic-i1', 'one more thing'])
  assert.equal(refused, {
    code: 1,
    stdout: '',
    stderr:
      'svc: conv 3 (r1-b-critic-i1) is a critic that has filed its done report; it takes no further messages\nhint: ' +
      'pass --force to send it anyway\n',
  })
  const verifier = await w.h.svc(['tell', 'r1-v-verifier-i1', 'and you'])
  assert.equal(
    [verifier.code, verifier.stderr],
    [
      1,
      'svc: conv 4 (r1-v-verifier-i1) is a verifier that has filed its done report; it takes no further ' +
        'messages\nhint: pass --force to send it anyway\n',
    ],
  )

  assert.equal(await w.h.svc(['tell', '3', 'one more thing', '--force']), {
    code: 0,
    stdout: 'sent to conv 3 (r1-b-critic-i1)\n',
    stderr: '',
  })
  await until(() => inbox('r1-b-critic-i1').includes('one more thing'), 'the forced message')
  // Messages reach an inbox in order: once the forced one is there, the refused one would have been before it.
  assert.is(inbox('r1-b-critic-i1').split('one more thing').length, 2, 'the refused message was not delivered')
  assert.not.ok(inbox('r1-v-verifier-i1').includes('and you'), 'nor the one refused to the verifier')
  assert.equal(await w.h.svc(['tell', 'r1-b-builder-i1', 'next steps']), {
    code: 0,
    stdout: 'sent to conv 2 (r1-b-builder-i1)\n',
    stderr: '',
  })
  await until(() => inbox('r1-b-builder-i1').includes('next steps'), 'the builder message')
  w.open('end')
})

test.run()
