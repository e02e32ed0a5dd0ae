import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git } from '../helpers/home.js'
import { LaneWorld, branchOf, q, sha, startLine } from './lane-start-kit.js'

// `svc lane start`: the working directory and checkout of each role, the brief and the contract, iterations
// (SPEC.md 2, 4.1 start). The role's configured model, sparse checkout, hooks and the fetch are in lane-start-config.

let w: LaneWorld
test.before.each(() => {
  w = new LaneWorld('lane')
})
test.after.each(async () => {
  await w.stop()
})

test('builder i1: worktree <run>-<key> on branch <run>/<key> cut from origin/main; brief and contract in the conv directory', async () => {
  await w.begin()
  const brief = '# Build the thing\n\nUse `tabs`, keep   spacing,\nand trailing blank lines.\n\n\n'
  writeFileSync(join(w.h.home, 'brief.md'), brief)
  const l = await w.started(
    ['--run', 'r1', '--key', 'api', '--role', 'builder', '--harness', 'none', '--brief', 'brief.md'],
    { cwd: w.h.home, process: true }, // once as a program of its own; the suites' other starts run its dispatch here
  )
  const dir = join(w.lanes, 'r1-api')
  assert.is(l.line, startLine('r1', 'api', 'builder', 1, l.id, 'r1-api-builder-i1', dir))
  assert.is(branchOf(dir), 'r1/api')
  assert.is(sha(dir), sha(w.project.checkout, 'origin/main'))
  assert.is(git(dir, 'status', '--porcelain'), '', 'a clean checkout')
  assert.is(
    git(dir, 'for-each-ref', '--format=%(upstream)', 'refs/heads/r1/api'),
    '',
    'the branch tracks nothing: not origin/main, which it was cut from',
  )
  assert.is(w.agentFile(l.name, 'lane-brief.md'), brief, 'the brief, byte for byte')
  const contract = w.agentFile(l.name, 'contract.md')
  for (const fact of [
    '- Role: builder',
    '- Run: r1',
    '- Lane key: api',
    '- Iteration: i1',
    `- Working directory: ${dir}`,
    '- Branch: r1/api',
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
    ['r1', 'api', 'builder', 1, 'r1/api'],
  )
  assert.is(v.activity, 'starting', 'a harness-none lane stays starting')

  // --prompt: the text is the brief; the sample checkout itself is untouched.
  const p = await w.started([
    '--run',
    'r1',
    '--key',
    'web',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'do the web part',
  ])
  assert.is(p.line, startLine('r1', 'web', 'builder', 1, p.id, 'r1-web-builder-i1', join(w.lanes, 'r1-web')))
  assert.is(w.agentFile(p.name, 'lane-brief.md'), 'do the web part')
  // --branch names the branch; --title the conversation; --json gives the lane and the same line.
  const j = await w.start([
    '--run',
    'r1',
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
  assert.is(out.line, `Lane r1/ui builder i1: conv ${out.lane.id} (r1-ui-builder-i1) in ${join(w.lanes, 'r1-ui')}`)
  assert.is(out.lane.title, 'UI work')
  assert.is(out.lane.lane.branch, 'feature/ui')
  assert.is(branchOf(join(w.lanes, 'r1-ui')), 'feature/ui')
  assert.is(branchOf(w.project.checkout), 'main')
  assert.is(git(w.project.checkout, 'status', '--porcelain'), '')
})

test('builder i2 is cut from the i1 branch (with i1 work in it), i3 with --from from the given ref', async () => {
  await w.begin()
  const script = [
    `echo "$SERVICE_CONVERSATION $(type -P svc)" > ${q(join(w.out, 'i1.env'))}`,
    `cp "$SERVICE_CONTRACT" ${q(join(w.out, 'i1.contract'))}`,
    'echo one > one.txt',
    'git add one.txt',
    'git commit -q -m "i1 work"',
  ].join('\n')
  const i1 = await w.started([
    '--run',
    'r1',
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    script,
  ])
  assert.is(i1.line, startLine('r1', 'k', 'builder', 1, i1.id, 'r1-k-builder-i1', join(w.lanes, 'r1-k')))
  assert.is((await w.until(i1.id, 'stopped')).ended.detail, 'exit code 0')
  const [conv, svcPath] = readFileSync(join(w.out, 'i1.env'), 'utf8').trim().split(' ')
  assert.is(conv, i1.id, 'the harness runs as the lane')
  assert.ok(svcPath.endsWith('/svc'), 'with svc on its PATH')
  assert.is(
    readFileSync(join(w.out, 'i1.contract'), 'utf8'),
    w.agentFile(i1.name, 'contract.md'),
    'and its contract at $SERVICE_CONTRACT',
  )
  const i1Head = sha(w.project.checkout, 'r1/k')
  assert.is.not(i1Head, sha(w.project.checkout, 'origin/main'), 'i1 committed on its branch')

  const i2 = await w.started([
    '--run',
    'r1',
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'again',
  ])
  const dir2 = join(w.lanes, 'r1-k-i2')
  assert.is(i2.line, startLine('r1', 'k', 'builder', 2, i2.id, 'r1-k-builder-i2', dir2))
  assert.is(branchOf(dir2), 'r1/k-i2')
  assert.is(sha(dir2), i1Head)
  assert.is(readFileSync(join(dir2, 'one.txt'), 'utf8'), 'one\n')
  assert.ok(w.agentFile(i2.name, 'contract.md').includes('- Iteration: i2'))
  assert.ok(existsSync(join(w.lanes, 'r1-k', 'one.txt')), 'i1 directory kept')

  await w.started([
    '--run',
    'r1',
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
  const dir3 = join(w.lanes, 'r1-k-i3')
  assert.is(branchOf(dir3), 'r1/k-i3')
  assert.is(sha(dir3), sha(w.project.checkout, 'origin/main'))
  assert.not.ok(existsSync(join(dir3, 'one.txt')))
})

test('orchestrator: detached at origin/main in <run>-<key>-orch, or at --at', async () => {
  await w.begin()
  const o = await w.started([
    '--run',
    'r1',
    '--key',
    'main',
    '--role',
    'orchestrator',
    '--harness',
    'none',
    '--prompt',
    'orchestrate',
  ])
  const dir = join(w.lanes, 'r1-main-orch')
  assert.is(o.line, startLine('r1', 'main', 'orchestrator', 1, o.id, 'r1-main-orchestrator-i1', dir))
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
  await w.begin()
  const secret = 'BUILDER-NOTE-7f3a'
  const b = await w.started([
    '--run',
    'r1',
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
  const head = sha(w.project.checkout, 'r1/k')
  const c = await w.started([
    '--run',
    'r1',
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
  const dir = join(w.lanes, 'r1-k-critic-i1')
  assert.is(c.line, startLine('r1', 'k', 'critic', 1, c.id, 'r1-k-critic-i1', dir))
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
  await w.begin()
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
  const b = await w.started([
    '--run',
    'r1',
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'shell',
    '--prompt',
    script,
  ])
  const ended = await w.until(b.id, 'stopped')
  assert.is(ended.ended.detail, 'exit code 0', 'the builder script ran through')
  const reported = sha(w.project.checkout, 'r1/k~1')
  const critic = [
    `printf '%s' '{"defects":[{"d":1},{"d":2}]}' > ${q(join(w.out, 'verdict.json'))}`,
    `svc lane report --stdin --verdict NOT_YET --verdict-file ${q(join(w.out, 'verdict.json'))} <<'EOF'`,
    'not yet',
    'EOF',
  ].join('\n')
  const c = await w.started(['--run', 'r1', '--for', 'k', '--role', 'critic', '--harness', 'shell', '--prompt', critic])
  assert.is(c.line, startLine('r1', 'k', 'critic', 1, c.id, 'r1-k-critic-i1', join(w.lanes, 'r1-k-critic-i1')))
  assert.is(sha(c.cwd), reported, 'the head the report recorded, not the branch tip')
  assert.equal((await w.show(c.id)).lane.for, { id: b.id, key: 'k', iteration: 1, sha: reported })
  for (const text of [w.agentFile(c.name, 'contract.md'), w.agentFile(c.name, 'lane-brief.md')]) {
    assert.not.ok(text.includes('REPORT-TEXT-91c2'), 'no text of the builder report')
    assert.not.ok(text.includes(b.name), 'no builder conversation name')
  }
  assert.is((await w.until(c.id, 'stopped')).ended.detail, 'exit code 0', 'the critic filed its verdict')

  await w.refused(
    ['--run', 'r1', '--key', 'k', '--role', 'builder', '--reuse', '--harness', 'none', '--prompt', 'more'],
    'svc: refused: branch r1/k of r1/k i1 is frozen (its builder reported done); start a new iteration\n',
  )
  const i2 = await w.started([
    '--run',
    'r1',
    '--key',
    'k',
    '--role',
    'builder',
    '--harness',
    'none',
    '--prompt',
    'answer the critic',
  ])
  assert.is(branchOf(i2.cwd), 'r1/k-i2')
  assert.is(sha(i2.cwd), sha(w.project.checkout, 'r1/k'), 'cut from the branch the report recorded')
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
  await w.begin()
  const v = await w.started([
    '--run',
    'r1',
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
  const dir = join(w.lanes, 'r1-all-verify-i1')
  assert.is(v.line, startLine('r1', 'all', 'verifier', 1, v.id, 'r1-all-verifier-i1', dir))
  assert.is(branchOf(dir), undefined)
  assert.is(sha(dir), sha(w.project.checkout, 'origin/main'))
  const rec = await w.show(v.id)
  assert.is(rec.lane.for, undefined)
  assert.is(rec.model, 'model-v', '--model wins')
  assert.ok(w.agentFile(v.name, 'contract.md').includes('--verdict PASS|DEFECTS'))
})

test('play: an empty directory with no .git, no SERVICE_* variable and no svc on PATH', async () => {
  await w.begin()
  const script = [
    'listing=$(ls -A)',
    'env > env.txt',
    'if command -v svc; then echo "found $(command -v svc)" > svc.txt; else echo "absent $?" > svc.txt; fi',
    'printf %s "$listing" > listing.txt',
    `touch ${q(join(w.out, 'play-done'))}`,
  ].join('\n')
  const p = await w.started([
    '--run',
    'r1',
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
  const dir = join(w.lanes, 'r1-toy-play-i1')
  assert.is(p.line, startLine('r1', 'toy', 'play', 1, p.id, 'r1-toy-play-i1', dir))
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
