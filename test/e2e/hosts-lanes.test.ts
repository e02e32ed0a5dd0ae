import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, until } from '../helpers/home.js'
import { SshHosts } from '../helpers/ssh-hosts.js'
import { buildAndReport, setupProject, type Setup } from '../helpers/project.js'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'

/** Lanes placed on other hosts (issue 27), on two real hosts (Debian's sshd in network namespaces, each its own
 * user): the project's default host and a role's own host, a worktree made on the host from origin, the lane run
 * by that host's runner, its report at home through the same wait, a gauntlet across both hosts with the
 * orchestrator at home, the list's HOST column, stop, and the refusals. */

let rig: SshHosts
let h: TestHome
let s: Setup
let origin: string
let shared: string

const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim()
const svc = (args: string[]) => h.svc(args, { env: s.env })

test.before(async () => {
  rig = await SshHosts.make(['a', 'b'])
  h = new TestHome('hosts-lanes')
  s = await setupProject(h)
  // Origin where both hosts' users reach it (the test home is private to root): one directory all may write.
  shared = mkdtempSync('/srv/svc-test-origin-')
  chmodSync(shared, 0o755)
  origin = join(shared, 'sample-origin.git')
  cpSync(s.project.origin, origin, { recursive: true })
  git(['-C', origin, 'config', 'core.sharedRepository', '0777'])
  execFileSync('chmod', ['-R', 'a+rwX', origin])
  git(['-C', s.project.checkout, 'remote', 'set-url', 'origin', origin])
  for (const name of ['a', 'b'])
    rig.as(
      name,
      `git config --global user.name ${name} && git config --global user.email ${name}@example.com && git config ` +
        `--global safe.directory '*'`,
    )
  const roles = Object.fromEntries(
    ['builder', 'critic', 'verifier', 'play', 'orchestrator'].map((r) => [
      r,
      { model: `model-${r}`, harness: 'shell' },
    ]),
  )
  writeProjectsYaml(h.service, s.project, {
    gauntlet: { host: 'a', roles: { ...roles, critic: { ...roles.critic, host: 'b' } } },
  })
  for (const name of ['a', 'b']) {
    const r = await h.svc(['host', 'add', name, '--ssh', rig.host(name).ssh, '--identity', rig.host(name).identity])
    assert.is(r.code, 0, r.stderr)
  }
})
test.after(async () => {
  await h?.stop()
  await rig?.cleanup()
  if (shared) rmSync(shared, { recursive: true, force: true })
})

const briefFile = (name: string, text: string) => {
  const f = join(h.home, name)
  writeFileSync(f, text)
  return f
}
/** The conversation name of a start line. */
const convName = (line: string) => /\((\S+)\) in /.exec(line)![1]
const onHost = (name: string, script: string) => rig.as(name, script).trim()
const laneDir = (name: string, dir: string) => `${rig.host(name).home}/svc-lanes/sample/${dir}`
/** Start a builder on the project's host running `lines` as its brief; its conversation name. */
async function startBuilder(run: string, key: string, lines: string[]) {
  const start = await svc([
    'lane',
    'start',
    '--run',
    run,
    '--key',
    key,
    '--role',
    'builder',
    '--prompt',
    lines.join('\n'),
  ])
  assert.is(start.code, 0, start.stderr)
  return convName(start.stdout)
}
/** The tree of a lane's worktree on its host as it is now, uncommitted and untracked files included, written
 * through an index of its own (the lane's index untouched): what a reap must hold at home before it removes it. */
const treeOnHost = (name: string, dir: string) =>
  onHost(
    name,
    `cd ${dir} && export GIT_INDEX_FILE=$(mktemp -u) && git read-tree HEAD && git add -A && git write-tree; rm -f ` +
      `"$GIT_INDEX_FILE"`,
  )
const gone = (name: string, dir: string) => onHost(name, `test -e ${dir} && echo there || echo gone`) === 'gone'

/** Reap a lane on a host and check every byte of its worktree is held at home: the held commit has the tree the
 * worktree had (its uncommitted files included) on top of its HEAD; the worktree is gone there. Returns the held ref
 * and what the reap printed. */
async function reapHeld(host: string, name: string, dir: string, args: string[] = []) {
  const tree = treeOnHost(host, dir)
  const head = onHost(host, `git -C ${dir} rev-parse HEAD`)
  const reap = await svc(['lane', 'reap', name, ...args])
  assert.is(reap.code, 0, reap.stderr)
  const held = new RegExp(
    `: removed ${host}:${dir}, every byte held at (refs/svc/hosts/${host}/${name}/reap-\\d+)[;\\n]`,
  ).exec(reap.stdout)?.[1]
  assert.ok(held, reap.stdout)
  assert.is(git(['-C', s.project.checkout, 'rev-parse', `${held}^{tree}`]), tree)
  assert.is(git(['-C', s.project.checkout, 'rev-parse', `${held}^`]), head)
  assert.ok(gone(host, dir), `${dir} removed on host ${host}`)
  return { held: held!, out: reap.stdout, err: reap.stderr }
}
/** A run's lanes as the kernel lists them, read through its port where the CLI is not what a test checks (a CLI call
 * costs a Node start, a poll many). */
const views = async (run: string) => (await h.port(s.env)).laneList({ run })
/** The activity of a run's first lane. */
const activity = async (run: string) => (await views(run))[0]?.activity
const listRows = async (run: string) =>
  (await h.ok(['lane', 'list', '--run', run], { env: s.env }))
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(/ {2,}/))

test('a builder on the project default host: worktree made there from origin, its report waited on at home', async () => {
  const start = await svc([
    'lane',
    'start',
    '--run',
    'g1',
    '--key',
    'feat',
    '--role',
    'builder',
    '--brief',
    briefFile('b1.sh', buildAndReport('built on a')),
  ])
  assert.is(start.code, 0, start.stderr)
  const dir = laneDir('a', 'g1-feat')
  assert.match(start.stdout, new RegExp(`^Lane g1/feat builder i1: conv \\d+ \\(\\S+\\) in ${dir}\\n$`))
  const wait = await svc(['lane', 'wait', '--run', 'g1', '--timeout', '30'])
  assert.is(wait.code, 0, wait.stderr)
  assert.is(wait.stdout, 'built on a\n')

  // Every byte: the commit made on host a is on origin and at home's fetch, with the file as the lane wrote it.
  const head = onHost('a', `git -C ${dir} rev-parse HEAD`)
  assert.is(onHost('a', `git -C ${dir} rev-parse --abbrev-ref HEAD`), 'g1/feat')
  assert.is(git(['-C', origin, 'rev-parse', 'refs/heads/g1/feat']), head)
  assert.is(git(['-C', origin, 'show', 'g1/feat:work.txt']), 'work')
  const name = (await views('g1'))[0].name
  const [report] = h.reports(name)
  assert.is(report.head, head)
  assert.is(report.branch, 'g1/feat')
  // The report was accepted once home held the worktree's snapshot: a commit on top of the lane's HEAD, on a hidden
  // ref of the project's repository here.
  const held = git(['-C', s.project.checkout, 'for-each-ref', '--format=%(refname)', `refs/svc/hosts/a/${name}/`])
  assert.match(held, new RegExp(`^refs/svc/hosts/a/${name}/\\d+-\\d+$`))
  assert.is(git(['-C', s.project.checkout, 'rev-parse', `${held}^`]), head)
  assert.is(git(['-C', s.project.checkout, 'show', `${held}:work.txt`]), 'work')

  // The wait returns once the report is stored; the lane's end comes after it, from the host over the link, and
  // under load may come after everything above: the list is read once home has it.
  await until(async () => (await activity('g1')) === 'stopped', 'the lane ended on host a, as home sees it')
  const rows = await listRows('g1')
  assert.is(rows[0].at(-1), 'HOST')
  assert.is(rows[1][rows[0].indexOf('ACTIVITY')], 'stopped')
  assert.is(rows[1][rows[0].indexOf('REPORT')], 'done')
  assert.is(rows[1].at(-1), 'a')
  // The API and the deck's tree carry the host too (the deck shows it on the lane's row).
  const port = await h.port()
  assert.is((await port.laneGet({ lane: name })).host, 'a')
})

test("a critic on its role's host judges the builder's pushed commit; the chain reads the same as at home", async () => {
  const critic = [
    'test "$(cat work.txt)" = work',
    `echo '{"defects":[]}' > verdict.json`,
    "svc lane report --verdict IMPRESSED --verdict-file verdict.json --stdin <<'EOF'\nlooks right\nEOF",
  ].join('\n')
  const start = await svc(['lane', 'start', '--run', 'g1', '--for', 'feat', '--role', 'critic', '--prompt', critic])
  assert.is(start.code, 0, start.stderr)
  assert.match(start.stdout, ` in ${laneDir('b', 'g1-feat-critic-i1')}\n`)
  const wait = await svc(['lane', 'wait', convName(start.stdout), '--timeout', '30'])
  assert.is(wait.code, 0, wait.stderr)
  assert.is(wait.stdout, 'looks right\n')
  const show = await h.ok(['lane', 'show', '--run', 'g1', '--key', 'feat'], { env: s.env })
  assert.match(show.split('\n')[0], /^i1 built → critic c\d+: IMPRESSED \(0 defects\)$/)
  const rows = await listRows('g1')
  assert.equal(
    rows.slice(1).map((r) => [r[rows[0].indexOf('ROLE')], r.at(-1)]),
    [
      ['builder', 'a'],
      ['critic', 'b'],
    ],
  )
})

test('an orchestrator at home starts a builder on host b and waits for it; its own wait gets the report', async () => {
  const inner = briefFile('b2.sh', buildAndReport('built on b', 'b.txt'))
  const orch = [
    `svc lane start --key bb --role builder --host b --brief ${inner} >/dev/null`,
    'got=$(svc lane wait --parent "$SERVICE_CONVERSATION" --timeout 30 2>/dev/null)',
    'svc lane report --stdin <<EOF\norchestrated: $got\nEOF',
  ].join('\n')
  const start = await svc(['lane', 'start', '--run', 'g2', '--key', 'o', '--role', 'orchestrator', '--prompt', orch])
  assert.is(start.code, 0, start.stderr)
  assert.match(start.stdout, ` in ${s.lanesRoot}/g2-o-orch\n`)
  const wait = await svc(['lane', 'wait', convName(start.stdout), '--timeout', '60'])
  assert.is(wait.stdout, 'orchestrated: built on b\n', wait.stderr)
  assert.is(wait.code, 0)
  assert.is(git(['-C', origin, 'show', 'g2/bb:b.txt']), 'work')
  const rows = await listRows('g2')
  assert.equal(
    rows.slice(1).map((r) => [r[rows[0].indexOf('ROLE')], r.at(-1)]),
    [
      ['orchestrator', '-'],
      ['builder', 'b'],
    ],
  )
})

test('the gauntlet is reaped, each lane on a host only once every byte of its worktree is held at home', async () => {
  const lanes = views
  const [builder, critic] = await lanes('g1')
  const [orch, inner] = await lanes('g2')
  assert.equal(
    [builder, critic, orch, inner].map((l) => `${l.role} ${l.host ?? 'here'}`),
    ['builder a', 'critic b', 'orchestrator here', 'builder b'],
  )

  // The builder's worktree is clean (committed and pushed): it goes, its commit held at home and on its branch.
  const b = await reapHeld('a', builder.name, laneDir('a', 'g1-feat'))
  assert.match(
    b.out,
    new RegExp(`^reaped g1/feat builder i1 \\(conv ${builder.id}\\): .*; branch g1/feat kept\\n$`),
    b.out,
  )
  assert.is(git(['-C', s.project.checkout, 'show', `${b.held}:work.txt`]), 'work')
  assert.is(
    onHost('a', `git -C ${rig.host('a').home}/svc-lanes/.repos/sample.git rev-parse --verify -q g1/feat`),
    git(['-C', origin, 'rev-parse', 'g1/feat']),
  )

  // The critic left its verdict file, uncommitted: refused without --park, nothing removed there, every byte held.
  const cdir = laneDir('b', 'g1-feat-critic-i1')
  const before = treeOnHost('b', cdir)
  const refused = await svc(['lane', 'reap', critic.name])
  assert.is(refused.code, 1)
  const heldFirst = new RegExp(
    `^svc: refused: b:${cdir} has uncommitted changes \\(1 path\\); commit them, or pass --park to save them to a ` +
      `patch\\nhint: nothing was removed; every byte of it is held at home at (refs/svc/hosts/b/${critic.name}` +
      `/reap-\\d+)\\n$`,
  ).exec(refused.stderr)?.[1]
  assert.ok(heldFirst, refused.stderr)
  assert.is(treeOnHost('b', cdir), before)
  assert.is(git(['-C', s.project.checkout, 'rev-parse', `${heldFirst}^{tree}`]), before)
  assert.is(onHost('b', `cat ${cdir}/verdict.json`), '{"defects":[]}')
  assert.is((await lanes('g1'))[1].archived, false)

  // With --park its work is parked here, proved, then the worktree goes.
  const c = await reapHeld('b', critic.name, cdir, ['--park'])
  const parked = /^parked 1 path to (\S+) \(kept at (refs\/svc\/parked\/\S+)\)\n/.exec(c.out)
  assert.ok(parked, c.out)
  assert.is(
    git(['-C', s.project.checkout, 'rev-parse', parked![2]]),
    git(['-C', s.project.checkout, 'rev-parse', c.held]),
  )
  assert.is(git(['-C', s.project.checkout, 'show', `${parked![2]}:verdict.json`]), '{"defects":[]}')
  // The patch alone gives the worktree back from its HEAD (applied here in an index of the test's own).
  const index = join(h.home, 'park-check.index')
  const env = { ...process.env, GIT_INDEX_FILE: index }
  execFileSync('git', ['-C', s.project.checkout, 'read-tree', `${c.held}^`], { env })
  execFileSync('git', ['-C', s.project.checkout, 'apply', '--cached', '--binary', parked![1]], { env })
  assert.is(execFileSync('git', ['-C', s.project.checkout, 'write-tree'], { env, encoding: 'utf8' }).trim(), before)
  rmSync(index)

  // The orchestrator's builder on host b before the orchestrator here (SPEC: builders first).
  await reapHeld('b', inner.name, laneDir('b', 'g2-bb'))
  const o = await svc(['lane', 'reap', orch.name])
  assert.is(o.code, 0, o.stderr)
  assert.equal(
    (await lanes('g1')).concat(await lanes('g2')).map((l) => l.archived),
    [true, true, true, true],
  )
  // Reaped and archived: a second reap is refused, and nothing more happens on the host.
  const again = await svc(['lane', 'reap', builder.name])
  assert.is(again.code, 1)
  assert.is(again.stderr, `svc: refused: conv ${builder.id} (${builder.name}) is already reaped and archived\n`)
})

test('a live lane on a host is stopped, then reaped; a process left inside refuses it; unpushed commits warn', async () => {
  const name = await startBuilder('g7', 'live', [
    'echo more > more.txt && git add more.txt && git commit -q -m more',
    // Out of the lane's process group: its stop leaves it running, inside the worktree.
    'setsid sleep 60 </dev/null >/dev/null 2>&1 &',
    'touch "$SERVICE_INBOX.ready"',
    'sleep 60',
  ])
  const dir = laneDir('a', 'g7-live')
  await rig.until(
    'a',
    `test -f .svc-host/state/lanes/${name}/inbox.txt.ready`,
    'the lane committed and left a process behind',
  )
  const before = treeOnHost('a', dir)
  const busy = await svc(['lane', 'reap', name])
  assert.is(busy.code, 1)
  const pid = new RegExp(
    `^svc: refused: host a: a process has its working directory inside ${dir}: (\\d+) \\(sleep 60\\); nothing was ` +
      `removed\\n$`,
  ).exec(busy.stderr)?.[1]
  assert.ok(pid, busy.stderr)
  // Step 1 was done: the lane itself was stopped; nothing of its worktree changed.
  assert.is(await activity('g7'), 'stopped')
  assert.is(treeOnHost('a', dir), before)

  onHost('a', `kill ${pid}`)
  // Gone, or a zombie its adopter has not reaped yet.
  await rig.until('a', `case "$(ps -o stat= -p ${pid})" in ""|Z*) true ;; *) false ;; esac`, 'the process ended')
  const r = await reapHeld('a', name, dir)
  assert.is(r.out.split('\n').length, 2, r.out)
  assert.is((await views('g7'))[0].archived, true)
  assert.is(git(['-C', s.project.checkout, 'show', `${r.held}:more.txt`]), 'more')
  assert.is(r.err, 'warning: g7/live has 1 commit not on any remote; the branch is kept\n')
})

test('a lane on a host: BRANCH@SHA, AHEAD and DIRTY as git reads them there, in the list and the API, as it works', async () => {
  const name = await startBuilder('g10', 'git', [
    'echo one > one.txt && git add one.txt && git commit -qm one && git push -q -u origin HEAD 2>/dev/null',
    'echo two > two.txt && git add two.txt && git commit -qm two',
    'mkdir -p deep && echo x > deep/x.txt',
    'while [ ! -f "$SERVICE_INBOX.go" ]; do sleep 0.05; done',
    'git add -A && git commit -qm three && git push -q 2>/dev/null',
    'svc lane report --stdin <<EOF\npushed\nEOF',
  ])
  const dir = laneDir('a', 'g10-git')
  const row = async () => {
    const [columns, cells] = await listRows('g10')
    return Object.fromEntries(columns.map((c, i) => [c, cells?.[i]]))
  }
  /** Waited for through the port; then the list's row is read once. */
  const shows = async (ahead: number, dirty: boolean, what: string) => {
    await until(async () => {
      const git = (await views('g10'))[0]?.git
      return git?.ahead === ahead && git.dirty === dirty
    }, what)
    const r = await row()
    assert.equal([r.AHEAD, r.DIRTY], [String(ahead), dirty ? 'yes' : 'no'])
    return r
  }
  // One commit pushed, one not, and a file not yet added: ahead 1, dirty, at the head the host has.
  const r1 = await shows(1, true, 'the lane on host a ahead 1 and dirty')
  const head1 = onHost('a', `git -C ${dir} rev-parse HEAD`)
  assert.is(r1['BRANCH@SHA'], `g10/git@${head1.slice(0, 7)}`)
  const port = await h.port()
  const view = await port.laneGet({ lane: name })
  assert.equal(
    { ...view.git, asOf: 0 },
    {
      branch: 'g10/git',
      head: head1,
      upstream: 'origin/g10/git',
      ahead: 1,
      behind: 0,
      dirty: true,
      dirtyPaths: 1,
      asOf: 0,
    },
  )
  onHost('a', `touch ~/.svc-host/state/lanes/${name}/inbox.txt.go`)
  const wait = await svc(['lane', 'wait', name, '--timeout', '30'])
  assert.is(wait.code, 0, wait.stderr)
  // Committed and pushed: nothing ahead, nothing uncommitted, at the new head.
  const r2 = await shows(0, false, 'the lane on host a pushed and clean')
  const head2 = onHost('a', `git -C ${dir} rev-parse HEAD`)
  assert.is(r2['BRANCH@SHA'], `g10/git@${head2.slice(0, 7)}`)
  assert.is(git(['-C', origin, 'rev-parse', 'g10/git']), head2)
  // Reaped: what is at its path is no longer its own, so no git facts are shown for it.
  await reapHeld('a', name, dir)
  const r3 = await row()
  assert.equal([r3['BRANCH@SHA'], r3.AHEAD, r3.DIRTY], ['g10/git@-', '-', '-'])
})

test('a message told to a lane on a host reaches its $SERVICE_INBOX there', async () => {
  const brief = [
    'while [ ! -s "$SERVICE_INBOX" ]; do sleep 0.05; done',
    'svc lane report --status blocked --stdin <<EOF\nBLOCKED told: $(cat "$SERVICE_INBOX")\nEOF',
  ].join('\n')
  const start = await svc(['lane', 'start', '--run', 'g5', '--key', 'ask', '--role', 'builder', '--prompt', brief])
  assert.is(start.code, 0, start.stderr)
  const tell = await h.svc(['tell', convName(start.stdout), 'use the second way'])
  assert.is(tell.code, 0, tell.stderr)
  const wait = await svc(['lane', 'wait', convName(start.stdout), '--timeout', '30'])
  assert.is(wait.code, 4, wait.stderr)
  assert.is(wait.stdout, 'BLOCKED told: use the second way\n')
})

test('a report filed on a host while the kernel was stopped arrives once the next kernel starts', async () => {
  const name = await startBuilder('g6', 'down', [
    'while [ ! -f go ]; do sleep 0.05; done',
    'svc lane report --status failed --stdin <<EOF\nreported while home was down\nEOF',
  ])
  assert.is((await h.svc(['kernel', 'stop'])).code, 0)
  onHost('a', `touch ${laneDir('a', 'g6-down')}/go`)
  // Exit 4: the report's own exit code for a failed report, under bash -e.
  await rig.until('a', `[ "$(cat .svc-host/state/lanes/${name}/ended 2>/dev/null)" = 4 ]`, 'the lane ended')
  // Any verb starts the kernel; it attaches to the host of the lane not ended and takes what happened meanwhile.
  const wait = await svc(['lane', 'wait', name, '--timeout', '30'])
  assert.is(wait.code, 4, wait.stderr)
  assert.is(wait.stdout, 'reported while home was down\n')
  assert.is(h.reports(name).length, 1)
  await until(async () => (await activity('g6')) === 'stopped', 'its end applied')
})

test('--reuse of a lane on a host runs a new conversation in its worktree there, iteration kept; refusals in one line', async () => {
  const first = await startBuilder('g9', 'again', [
    'echo one > one.txt',
    'touch "$SERVICE_INBOX.ready"',
    'while [ ! -f go ]; do sleep 0.05; done',
  ])
  const dir = laneDir('a', 'g9-again')
  const reuse = (lines: string[], extra: string[] = []) =>
    svc([
      'lane',
      'start',
      '--run',
      'g9',
      '--key',
      'again',
      '--role',
      'builder',
      '--reuse',
      ...extra,
      '--prompt',
      lines.join('\n'),
    ])
  const lanes = () => views('g9')
  await rig.until('a', `test -f .svc-host/state/lanes/${first}/inbox.txt.ready`, 'the first lane wrote its work')
  const [one] = await lanes()
  const live = await reuse(['true'])
  assert.equal(
    [live.code, live.stderr],
    [1, `svc: lane g9/again builder i1 is live (conv ${one.id}); pass --replace to stop it and launch anew\n`],
  )
  onHost('a', `touch ${dir}/go`)
  await until(async () => (await lanes())[0].activity === 'stopped', 'the first lane ended on host a')

  const elsewhere = await reuse(['true'], ['--host', 'b'])
  assert.equal(
    [elsewhere.code, elsewhere.stderr],
    [1, 'svc: --host "b" does not go with --reuse: the lane continues in g9-again on host a as it is\n'],
  )
  // Moved away by hand on the host: refused, nothing recorded; back in place, the respawn runs there.
  onHost('a', `mv ${dir} ${dir}.away`)
  const away = await reuse(['true'])
  assert.equal(
    [away.code, away.stderr],
    [1, `svc: refused: on host a: ${dir} is gone (reaped?); start a new iteration instead\n`],
  )
  onHost('a', `mv ${dir}.away ${dir}`)
  assert.is((await lanes()).length, 1)

  const second = await reuse([
    'test "$(cat one.txt)" = one',
    'echo two >> one.txt',
    'svc lane report --status blocked --stdin <<EOF || true\nBLOCKED saw one\nEOF',
  ])
  assert.is(second.code, 0, second.stderr)
  assert.match(second.stdout, new RegExp(`^Lane g9/again builder i1: conv \\d+ \\(\\S+\\) in ${dir}\\n$`))
  const name = convName(second.stdout)
  const wait = await svc(['lane', 'wait', name, '--timeout', '30'])
  assert.equal([wait.code, wait.stdout], [4, 'BLOCKED saw one\n'], wait.stderr)
  const both = await lanes()
  assert.equal(
    both.map((l) => [l.iteration, l.cwd, l.host]),
    [
      [1, dir, 'a'],
      [1, dir, 'a'],
    ],
  )
  assert.is.not(both[1].id, one.id)
  assert.is(onHost('a', `cat ${dir}/one.txt`), 'one\ntwo')
  // Both lanes of the worktree read what host a last read there (one.txt untracked), as two lanes of one here would.
  const [git1, git2] = both.map((l) => (l as { git?: { dirty: boolean; asOf: number } }).git)
  assert.equal([git2?.dirty, git1], [true, git2])
  // Its report was accepted once home held its worktree, the first lane's work and its own in it.
  const held = git(['-C', s.project.checkout, 'for-each-ref', '--format=%(refname)', `refs/svc/hosts/a/${name}/`])
  assert.is(git(['-C', s.project.checkout, 'show', `${held}:one.txt`]), 'one\ntwo')

  await reapHeld('a', name, dir, ['--park'])
  const reaped = await reuse(['true'])
  assert.equal(
    [reaped.code, reaped.stderr],
    [
      1,
      `svc: refused: the directory a:${dir} of conv ${both[1].id} is gone (reaped?); start a new iteration instead\n`,
    ],
  )
  // The first lane's worktree went with that reap, every byte held: it reaps with nothing left to remove there.
  const earlier = await svc(['lane', 'reap', one.name])
  assert.equal(
    [earlier.code, earlier.stdout, earlier.stderr],
    [0, `reaped g9/again builder i1 (conv ${one.id}); branch g9/again kept\n`, ''],
  )
  assert.equal(
    (await lanes()).map((l) => l.archived),
    [true, true],
  )
})

test('stop ends a lane on its host, which then reaps; the placements a host cannot take are refused in one line', async () => {
  const start = await svc([
    'lane',
    'start',
    '--run',
    'g3',
    '--key',
    'slow',
    '--role',
    'builder',
    '--prompt',
    'sleep 60',
  ])
  assert.is(start.code, 0, start.stderr)
  const name = convName(start.stdout)
  await until(async () => (await activity('g3')) === 'working', 'the lane working on host a')
  // Host a holds this live lane's worktree, and those of the earlier lanes left stopped there, not reaped.
  const remove = await h.svc(['host', 'remove', 'a'])
  assert.is(remove.code, 1)
  assert.match(
    remove.stderr,
    new RegExp(
      `^svc: refused: host a still holds the worktrees of \\d+ lanes: .*conv-${name} \\(live\\).*\\nhint: reap them ` +
        `first: svc lane reap <lane> \\(a live lane is stopped first; --park keeps uncommitted work\\), then remove ` +
        `the host; if it is gone for good: svc host remove a --forget-lanes\\n$`,
    ),
  )
  assert.is((await h.svc(['host', 'list'])).stdout.split('\n')[1].split(/ +/)[0], 'a')
  const stop = await svc(['lane', 'stop', name])
  assert.is(stop.code, 0, stop.stderr)
  assert.is(await activity('g3'), 'stopped')
  // The lane's whole process group ended on the host (a zombie left to a parent that does not reap is no process).
  await rig.until(
    'a',
    `[ -z "$(ps -u "$(id -u)" -o stat=,comm= | awk '$2 == "sleep" && $1 !~ /^Z/')" ]`,
    'no sleep of the lane left',
  )

  // Stopped, clean: reaped with --keep, so it stays listed; its worktree on host a held at home and gone there.
  await reapHeld('a', name, laneDir('a', 'g3-slow'), ['--keep'])
  assert.is(await activity('g3'), 'stopped')

  const nowhere = await svc([
    'lane',
    'start',
    '--run',
    'g3',
    '--key',
    'x',
    '--role',
    'builder',
    '--host',
    'c',
    '--prompt',
    'true',
  ])
  assert.is(nowhere.code, 1)
  assert.is(nowhere.stderr, 'svc: refused: --host names host "c", which is not in hosts.yaml\nhint: hosts: a, b\n')
  const claude = await svc([
    'lane',
    'start',
    '--run',
    'g3',
    '--key',
    'y',
    '--role',
    'builder',
    '--harness',
    'claude',
    '--prompt',
    'hi',
  ])
  assert.is(claude.code, 1)
  assert.match(
    claude.stderr,
    'svc: refused: a lane on host a runs with the shell harness only (this one would run claude)\n',
  )
  const orch = await svc([
    'lane',
    'start',
    '--run',
    'g4',
    '--key',
    'o',
    '--role',
    'orchestrator',
    '--host',
    'a',
    '--prompt',
    'true',
  ])
  assert.is(orch.code, 1)
  assert.match(orch.stderr, 'svc: refused: an orchestrator lane runs at home, not on host a\n')
})

test('host remove is refused while a stopped lane still has its worktree there; its reap names the ignored files it removes; then the host goes', async () => {
  // What the user's own ignore rules hide on host b goes with the worktree, named in a note as a reap here names it.
  onHost('b', 'mkdir -p ~/.config/git && echo build-out/ > ~/.config/git/ignore')
  const start = await svc([
    'lane',
    'start',
    '--run',
    'g8',
    '--key',
    'rm',
    '--role',
    'builder',
    '--host',
    'b',
    '--prompt',
    'mkdir build-out && head -c 3000 /dev/zero > build-out/big.bin',
  ])
  assert.is(start.code, 0, start.stderr)
  const name = convName(start.stdout)
  await until(async () => (await activity('g8')) === 'stopped', 'the lane ended on host b')
  const dir = laneDir('b', 'g8-rm')
  const refused = await h.svc(['host', 'remove', 'b'])
  assert.is(refused.code, 1)
  assert.is(
    refused.stderr,
    `svc: refused: host b still holds the worktree of 1 lane: conv-${name} (stopped, not reaped)\nhint: reap it ` +
      `first: svc lane reap <lane> (a live lane is stopped first; --park keeps uncommitted work), then remove the ` +
      `host; if it is gone for good: svc host remove b --forget-lanes\n`,
  )
  // Nothing was forgotten: the host stays listed, the lane's worktree is where it was.
  assert.ok((await h.ok(['host', 'list'])).split('\n').some((l) => l.startsWith('b ')))
  assert.is(onHost('b', `wc -c < ${dir}/build-out/big.bin`), '3000')

  const r = await reapHeld('b', name, dir)
  assert.is(r.err, "note: left out 1 path the branch's ignore rules hide, 3.0 kB in all: build-out/ (3.0 kB)\n")
  const removed = await h.svc(['host', 'remove', 'b'])
  assert.is(removed.code, 0, removed.stderr)
  assert.match(removed.stdout, /^removed host b \(/)
  assert.not.ok((await h.ok(['host', 'list'])).split('\n').some((l) => l.startsWith('b ')))
})

test('a host gone for good: remove --forget-lanes gives its lanes up on one line; what home holds stays', async () => {
  const live = await startBuilder('g11', 'gone', ['sleep 300'])
  await until(async () => (await activity('g11')) === 'working', 'the lane working on host a')
  const stopped = (await views('g6'))[0]
  const heldRefs = (name: string) =>
    git(['-C', s.project.checkout, 'for-each-ref', '--format=%(refname)', `refs/svc/hosts/a/${name}/`])
  const held = heldRefs(stopped.name)
  assert.is(held.split('\n').length, 1, held)
  // Host a goes away for good: its link cut, never to come back while this test runs.
  rig.link('a', false)
  try {
    const refused = await h.svc(['host', 'remove', 'a'])
    assert.is(refused.code, 1)
    assert.match(refused.stderr, /\nhint: .*; if it is gone for good: svc host remove a --forget-lanes\n$/)
    const removed = await h.svc(['host', 'remove', 'a', '--forget-lanes'])
    assert.is(removed.code, 0, removed.stderr)
    assert.match(removed.stdout, /^removed host a \(.*\); its key is forgotten\n$/)
    assert.match(removed.stderr, /^warning: gave up the worktrees of \d+ lanes on host a, marked reaped: [^\n]*\n$/)
    for (const given of [
      `conv-${live} (live; nothing held at home)`,
      `conv-${stopped.name} (stopped; 1 snapshot kept at refs/svc/hosts/a/${stopped.name}/)`,
    ])
      assert.ok(removed.stderr.includes(given), removed.stderr)
  } finally {
    rig.link('a', true)
  }
  assert.not.ok((await h.ok(['host', 'list'])).split('\n').some((l) => l.startsWith('a ')))
  // Every byte home held of them is still held; the lanes read ended, and reaped: a reap now only archives.
  assert.is(heldRefs(stopped.name), held)
  const view = (await views('g11'))[0]
  assert.equal([view.activity, view.evidence.source], ['stopped', 'host a removed (--forget-lanes)'])
  const reap = await svc(['lane', 'reap', live])
  assert.equal(
    [reap.code, reap.stdout, reap.stderr],
    [0, `reaped g11/gone builder i1 (conv ${view.id}); branch g11/gone kept\n`, ''],
  )
})

test.run()
