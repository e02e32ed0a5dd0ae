import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git } from '../helpers/home.js'
import { LaneWorld, branchOf, q, sha, startLine } from './lane-start-kit.js'

// `svc lane start`: the working directory and checkout of each role, the brief and the contract, iterations
// (SPEC.md 2, 4.1 start). The role's configured model, sparse checkout, hooks and the fetch are in lane-start-config.

// One home and kernel for the suite (its start is most of what a test here would cost): each test launches in a run
// of its own, with projects.yaml as the suite began and a directory of its own for what its lanes write.
let w: LaneWorld
let run = ''
let runs = 0
test.before(async () => {
  w = new LaneWorld('lane')
  await w.begin()
})
test.before.each(() => {
  run = `r${++runs}`
  w.nextTest(run)
})
test.after(async () => {
  await w.stop()
})

test('builder i1: worktree <run>-<key> on branch <run>/<key> cut from origin/main; brief and contract in the conv directory', async () => {
  const brief = '# Build the thing\n\nUse `tabs`, keep   spacing,\nand trailing blank lines.\n\n\n'
  writeFileSync(join(w.h.home, 'brief.md'), brief)
  const l = await w.started(
    ['--run', run, '--key', 'api', '--role', 'builder', '--harness', 'none', '--brief', 'brief.md'],
    { cwd: w.h.home, process: true }, // once as a program of its own; the suites' other starts run its dispatch here
  )
  const dir = join(w.lanes, `${run}-api`)
  assert.is(l.line, startLine(run, 'api', 'builder', 1, l.id, `${run}-api-builder-i1`, dir))
  assert.is(branchOf(dir), `${run}/api`)
  assert.is(sha(dir), sha(w.project.checkout, 'origin/main'))
  assert.is(git(dir, 'status', '--porcelain'), '', 'a clean checkout')
  assert.is(
    git(dir, 'for-each-ref', '--format=%(upstream)', `refs/heads/${run}/api`),
    '',
    'the branch tracks nothing: not origin/main, which it was cut from',
  )
  assert.is(w.agentFile(l.name, 'lane-brief.md'), brief, 'the brief, byte for byte')
  const contract = w.agentFile(l.name, 'contract.md')
  for (const fact of [
    '- Role: builder',
    `- Run: ${run}`,
    '- Lane key: api',
    '- Iteration: i1',
    `- Working directory: ${dir}`,
    `- Branch: ${run}/api`,
    'svc lane report --file',
  ])
    assert.ok(contract.includes(fact), `contract states ${fact}:\n${contract}`)
  assert.ok(contract.includes(brief.trimEnd()), 'the contract carries the brief')
  const v = await w.show(l.id)
  assert.is(v.kind, 'lane')
  assert.is(v.parent, w.root)
  assert.is(v.cwd, dir)
  assert.equal(
    [v.lane.run, v.lane.key, v.lane.role, v.lane.iteration, v.lane.branch],
    [run, 'api', 'builder', 1, `${run}/api`],
  )
  assert.is(v.activity, 'starting', 'a harness-none lane stays starting')

  // --prompt: the text is the brief; the sample checkout itself is untouched.
  const p = await w.started([
    '--run',
    run,
    '--key',
    'web',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'do the web part',
  ])
  assert.is(p.line, startLine(run, 'web', 'builder', 1, p.id, `${run}-web-builder-i1`, join(w.lanes, `${run}-web`)))
  assert.is(w.agentFile(p.name, 'lane-brief.md'), 'do the web part')
  // --branch names the branch; --title the conversation; --json gives the lane and the same line.
  const j = await w.start([
    '--run',
    run,
    '--key',
    'ui',
    '--role',
    'builder',
    '--harness',
    'none',
    '--branch',
    'feature/ui',
    '--title',
    'UI work',
    '--prompt',
    'ui',
    '--json',
  ])
  assert.is(j.code, 0, j.stderr)
  const out = JSON.parse(j.stdout)
  assert.is(
    out.line,
    `Lane ${run}/ui builder i1: conv ${out.lane.id} (${run}-ui-builder-i1) in ${join(w.lanes, `${run}-ui`)}`,
  )
  assert.is(out.lane.title, 'UI work')
  assert.is(out.lane.lane.branch, 'feature/ui')
  assert.is(branchOf(join(w.lanes, `${run}-ui`)), 'feature/ui')
  assert.is(branchOf(w.project.checkout), 'main')
  assert.is(git(w.project.checkout, 'status', '--porcelain'), '')
})

test('builder i2 is cut from the i1 branch (with i1 work in it), i3 with --from from the given ref', async () => {
  const script = [
    `echo "$SERVICE_CONVERSATION $(type -P svc)" > ${q(join(w.out, 'i1.env'))}`,
    `cp "$SERVICE_CONTRACT" ${q(join(w.out, 'i1.contract'))}`,
    'echo one > one.txt',
    'git add one.txt',
    'git commit -q -m "i1 work"',
  ].join('\n')
  const i1 = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    script,
  ])
  assert.is(i1.line, startLine(run, 'k', 'builder', 1, i1.id, `${run}-k-builder-i1`, join(w.lanes, `${run}-k`)))
  assert.is((await w.until(i1.id, 'stopped')).ended.detail, 'exit code 0')
  const [conv, svcPath] = readFileSync(join(w.out, 'i1.env'), 'utf8').trim().split(' ')
  assert.is(conv, i1.id, 'the harness runs as the lane')
  assert.ok(svcPath.endsWith('/svc'), 'with svc on its PATH')
  assert.is(
    readFileSync(join(w.out, 'i1.contract'), 'utf8'),
    w.agentFile(i1.name, 'contract.md'),
    'and its contract at $SERVICE_CONTRACT',
  )
  const i1Head = sha(w.project.checkout, `${run}/k`)
  assert.is.not(i1Head, sha(w.project.checkout, 'origin/main'), 'i1 committed on its branch')

  const i2 = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'again',
  ])
  const dir2 = join(w.lanes, `${run}-k-i2`)
  assert.is(i2.line, startLine(run, 'k', 'builder', 2, i2.id, `${run}-k-builder-i2`, dir2))
  assert.is(branchOf(dir2), `${run}/k-i2`)
  assert.is(sha(dir2), i1Head)
  assert.is(readFileSync(join(dir2, 'one.txt'), 'utf8'), 'one\n')
  assert.ok(w.agentFile(i2.name, 'contract.md').includes('- Iteration: i2'))
  assert.ok(existsSync(join(w.lanes, `${run}-k`, 'one.txt')), 'i1 directory kept')

  await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--replace',
    '--harness',
    'none',
    '--from',
    'origin/main',
    '--prompt',
    'from scratch',
  ])
  const dir3 = join(w.lanes, `${run}-k-i3`)
  assert.is(branchOf(dir3), `${run}/k-i3`)
  assert.is(sha(dir3), sha(w.project.checkout, 'origin/main'))
  assert.not.ok(existsSync(join(dir3, 'one.txt')))
})

test('orchestrator: detached at origin/main in <run>-<key>-orch, or at --at', async () => {
  const o = await w.started([
    '--run',
    run,
    '--key',
    'main',
    '--role',
    'orchestrator',
    '--harness',
    'none',
    '--prompt',
    'orchestrate',
  ])
  const dir = join(w.lanes, `${run}-main-orch`)
  assert.is(o.line, startLine(run, 'main', 'orchestrator', 1, o.id, `${run}-main-orchestrator-i1`, dir))
  assert.is(branchOf(dir), undefined, 'detached')
  assert.is(sha(dir), sha(w.project.checkout, 'origin/main'))
  assert.is((await w.show(o.id)).model, 'model-o', 'the role model from projects.yaml')

  const first = sha(w.project.checkout, 'origin/main')
  writeFileSync(join(w.project.checkout, 'two.txt'), '2\n')
  git(w.project.checkout, 'add', 'two.txt')
  git(w.project.checkout, 'commit', '-q', '-m', 'two')
  git(w.project.checkout, 'push', '-q', 'origin', 'main')
  const o2 = await w.started([
    '--run',
    'r2',
    '--key',
    'main',
    '--role',
    'orchestrator',
    '--harness',
    'none',
    '--at',
    first,
    '--prompt',
    'orchestrate',
  ])
  assert.is(o2.cwd, join(w.lanes, 'r2-main-orch'))
  assert.is(branchOf(o2.cwd), undefined)
  assert.is(sha(o2.cwd), first)
  const contract = w.agentFile(o2.name, 'contract.md')
  assert.ok(contract.includes(`- Checked out (detached) at: ${first}`), contract)
  assert.ok(contract.includes('- Role: orchestrator'))
})

test('critic: --at <sha> gives a detached worktree <run>-<key>-critic-i1; nothing of the builder but the commit reaches it', async () => {
  const secret = 'BUILDER-NOTE-7f3a'
  const b = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    `echo ${secret} > notes.txt\ngit add notes.txt\ngit commit -q -m ${secret}\necho ${secret}-stdout\n`,
  ])
  await w.until(b.id, 'stopped')
  const head = sha(w.project.checkout, `${run}/k`)
  const c = await w.started([
    '--run',
    run,
    '--for',
    'k',
    '--role',
    'critic',
    '--harness',
    'none',
    '--at',
    head,
    '--prompt',
    'judge it harshly',
  ])
  const dir = join(w.lanes, `${run}-k-critic-i1`)
  assert.is(c.line, startLine(run, 'k', 'critic', 1, c.id, `${run}-k-critic-i1`, dir))
  assert.is(branchOf(dir), undefined, 'detached')
  assert.is(sha(dir), head)
  const v = await w.show(c.id)
  assert.equal(v.lane.for, { id: b.id, key: 'k', iteration: 1, sha: head }, 'the judged builder row, written at launch')
  assert.is(v.model, 'model-c')
  assert.is(v.effort, 'low', 'the role effort from projects.yaml')
  const contract = w.agentFile(c.name, 'contract.md')
  const brief = w.agentFile(c.name, 'lane-brief.md')
  assert.is(brief, 'judge it harshly')
  assert.ok(contract.includes(`You judge builder k i1 at commit ${head}`), contract)
  for (const text of [contract, brief]) {
    assert.not.ok(text.includes(b.name), 'no builder conversation name')
    assert.not.ok(text.includes(secret), 'nothing the builder wrote')
  }
})

test('critic without --at: at the head of the builder done report, with no text of the report; i2 cut from the reported branch', async () => {
  const script = [
    'echo a > a.txt',
    'git add a.txt',
    'git commit -q -m reported',
    'git push -q -u origin HEAD 2>/dev/null',
    "svc lane report --stdin <<'EOF'",
    'REPORT-TEXT-91c2 all done',
    'EOF',
    'echo b > b.txt',
    'git add b.txt',
    'git commit -q -m after-the-report',
  ].join('\n')
  const b = await w.started(['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'shell', '--prompt', script])
  const ended = await w.until(b.id, 'stopped')
  assert.is(ended.ended.detail, 'exit code 0', 'the builder script ran through')
  const reported = sha(w.project.checkout, `${run}/k~1`)
  const critic = [
    `printf '%s' '{"defects":[{"d":1},{"d":2}]}' > ${q(join(w.out, 'verdict.json'))}`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${q(join(w.out, 'verdict.json'))} <<'EOF'`,
    'not yet',
    'EOF',
  ].join('\n')
  const c = await w.started(['--run', run, '--for', 'k', '--role', 'critic', '--harness', 'shell', '--prompt', critic])
  assert.is(c.line, startLine(run, 'k', 'critic', 1, c.id, `${run}-k-critic-i1`, join(w.lanes, `${run}-k-critic-i1`)))
  assert.is(sha(c.cwd), reported, 'the head the report recorded, not the branch tip')
  assert.equal((await w.show(c.id)).lane.for, { id: b.id, key: 'k', iteration: 1, sha: reported })
  for (const text of [w.agentFile(c.name, 'contract.md'), w.agentFile(c.name, 'lane-brief.md')]) {
    assert.not.ok(text.includes('REPORT-TEXT-91c2'), 'no text of the builder report')
    assert.not.ok(text.includes(b.name), 'no builder conversation name')
  }
  assert.is((await w.until(c.id, 'stopped')).ended.detail, 'exit code 0', 'the critic filed its verdict')

  await w.refused(
    ['--run', run, '--key', 'k', '--role', 'builder', '--reuse', '--harness', 'none', '--prompt', 'more'],
    `svc: refused: branch ${run}/k of ${run}/k i1 is frozen (its builder reported done); start a new iteration\n`,
  )
  const i2 = await w.started([
    '--run',
    run,
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'answer the critic',
  ])
  assert.is(branchOf(i2.cwd), `${run}/k-i2`)
  assert.is(sha(i2.cwd), sha(w.project.checkout, `${run}/k`), 'cut from the branch the report recorded')
  const contract = w.agentFile(i2.name, 'contract.md')
  const verdictFile = join(w.h.service, 'agents', `conv-${c.name}`, 'verdict.json')
  assert.ok(
    contract.includes(
      `- This iteration answers the verdict of critic conv ${c.id}: NOT_YET, verdict file ${verdictFile}.`,
    ),
    contract,
  )
  assert.ok(existsSync(verdictFile))
})

test('verifier without --for: detached at origin/main in <run>-<key>-verify-i1', async () => {
  const v = await w.started([
    '--run',
    run,
    '--key',
    'all',
    '--role',
    'verifier',
    '--model',
    'model-v',
    '--harness',
    'none',
    '--prompt',
    'verify the run',
  ])
  const dir = join(w.lanes, `${run}-all-verify-i1`)
  assert.is(v.line, startLine(run, 'all', 'verifier', 1, v.id, `${run}-all-verifier-i1`, dir))
  assert.is(branchOf(dir), undefined)
  assert.is(sha(dir), sha(w.project.checkout, 'origin/main'))
  const rec = await w.show(v.id)
  assert.is(rec.lane.for, undefined)
  assert.is(rec.model, 'model-v', '--model wins')
  assert.ok(w.agentFile(v.name, 'contract.md').includes('--verdict PASS|DEFECTS'))
})

test('play: an empty directory with no .git, no SERVICE_* variable and no svc on PATH', async () => {
  const script = [
    'listing=$(ls -A)',
    'env > env.txt',
    'if command -v svc; then echo "found $(command -v svc)" > svc.txt; else echo "absent $?" > svc.txt; fi',
    'printf %s "$listing" > listing.txt',
    `touch ${q(join(w.out, 'play-done'))}`,
  ].join('\n')
  const p = await w.started([
    '--run',
    run,
    '--key',
    'toy',
    '--role',
    'play',
    '--model',
    'm',
    '--harness',
    'shell',
    '--prompt',
    script,
  ])
  const dir = join(w.lanes, `${run}-toy-play-i1`)
  assert.is(p.line, startLine(run, 'toy', 'play', 1, p.id, `${run}-toy-play-i1`, dir))
  await w.outFile('play-done')
  assert.is(readFileSync(join(dir, 'listing.txt'), 'utf8'), '', 'empty at start')
  assert.not.ok(existsSync(join(dir, '.git')))
  const env = readFileSync(join(dir, 'env.txt'), 'utf8')
  assert.equal(
    env.split('\n').filter((l) => l.startsWith('SERVICE_')),
    [],
    'no SERVICE_* variable',
  )
  assert.is(readFileSync(join(dir, 'svc.txt'), 'utf8'), 'absent 1\n')
  const v = await w.show(p.id)
  assert.is(v.lane.branch, undefined)
  assert.is(v.lane.repo, undefined)
  assert.not.match(git(w.project.checkout, 'worktree', 'list'), 'play')
})

test.run()
