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
      `git config --global user.name ${name} && git config --global user.email ${name}@example.com && git config --global safe.directory '*'`,
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
  const name = JSON.parse((await svc(['lane', 'list', '--run', 'g1', '--json'])).stdout)[0].name
  const [report] = h.reports(name)
  assert.is(report.head, head)
  assert.is(report.branch, 'g1/feat')
  // The report was accepted once home held the worktree's snapshot: a commit on top of the lane's HEAD, on a hidden
  // ref of the project's repository here.
  const held = git(['-C', s.project.checkout, 'for-each-ref', '--format=%(refname)', `refs/svc/hosts/a/${name}/`])
  assert.match(held, new RegExp(`^refs/svc/hosts/a/${name}/\\d+-\\d+$`))
  assert.is(git(['-C', s.project.checkout, 'rev-parse', `${held}^`]), head)
  assert.is(git(['-C', s.project.checkout, 'show', `${held}:work.txt`]), 'work')

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
  const brief = [
    'while [ ! -f go ]; do sleep 0.05; done',
    'svc lane report --status failed --stdin <<EOF\nreported while home was down\nEOF',
  ].join('\n')
  const start = await svc(['lane', 'start', '--run', 'g6', '--key', 'down', '--role', 'builder', '--prompt', brief])
  assert.is(start.code, 0, start.stderr)
  const name = convName(start.stdout)
  assert.is((await h.svc(['kernel', 'stop'])).code, 0)
  onHost('a', `touch ${laneDir('a', 'g6-down')}/go`)
  await until(
    // Exit 4: the report's own exit code for a failed report, under bash -e.
    () => onHost('a', `cat ~/.svc-host/state/lanes/${name}/ended 2>/dev/null || true`) === '4',
    'the lane ended on host a',
  )
  // Any verb starts the kernel; it attaches to the host of the lane not ended and takes what happened meanwhile.
  const wait = await svc(['lane', 'wait', name, '--timeout', '30'])
  assert.is(wait.code, 4, wait.stderr)
  assert.is(wait.stdout, 'reported while home was down\n')
  assert.is(h.reports(name).length, 1)
  await until(async () => (await listRows('g6'))[1]?.[4] === 'stopped', 'its end applied')
})

test('stop ends a lane on its host; reap and the placements a host cannot take are refused in one line', async () => {
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
  await until(async () => (await listRows('g3'))[1]?.[4] === 'working', 'the lane working on host a')
  const remove = await h.svc(['host', 'remove', 'a'])
  assert.is(remove.code, 1)
  assert.is(
    remove.stderr,
    `svc: host a has 1 live lane: conv-${name}\nhint: stop or reap them first (svc lane stop <lane>)\n`,
  )
  const stop = await svc(['lane', 'stop', name])
  assert.is(stop.code, 0, stop.stderr)
  assert.is((await listRows('g3'))[1][4], 'stopped')
  // The lane's whole process group ended on the host (a zombie left to a parent that does not reap is no process).
  await until(
    () => onHost('a', `ps -u "$(id -u)" -o stat=,comm= | awk '$2 == "sleep" && $1 !~ /^Z/'`) === '',
    'no sleep of the lane left on host a',
  )

  const reap = await svc(['lane', 'reap', name])
  assert.is(reap.code, 1)
  assert.match(reap.stderr, `svc: refused: conv `)
  assert.match(reap.stderr, `runs on host a; a reap there is not built yet, so nothing was touched\n`)
  assert.is(onHost('a', `test -d ${laneDir('a', 'g3-slow')} && echo kept`), 'kept')

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

test.run()
