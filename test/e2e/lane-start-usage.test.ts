import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeProjectsYaml } from '../../cli/demo/sample-project.js'
import { git } from '../helpers/home.js'
import { DEFAULT_CONFIG, LaneWorld, sha } from './lane-start-kit.js'

// `svc lane start` usage and configuration refusals (SPEC.md 4.1 start, 8): the run, key, role, brief, effort, model
// and launcher, refs that look like options, a wrong projects.yaml entry, a lanes_root that may not be. Each exits 1
// with one `svc: ` line and leaves nothing behind. A family of refusals is proven here once, end to end; each of its
// cases is a row of the rulebook's tables (test/domain/keys, launch).

// One home and kernel for the suite (its start is most of what a test here would cost): each test launches in a run
// of its own, with projects.yaml as the suite began and a directory of its own for what its lanes write.
let w: LaneWorld
let run = ''
let runs = 0
test.before(async () => {
  w = new LaneWorld('lane-rules')
  await w.begin()
})
test.before.each(() => {
  run = `r${++runs}`
  w.nextTest(run)
})
test.after(async () => {
  await w.stop()
})

test('usage refusals: run, keys, role, brief, effort, model, launcher, refs; nothing left behind', async () => {
  await w.started(['--run', run, '--key', 'taken', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  const b = ['--role', 'builder', '--harness', 'none']
  // A project whose path holds no git checkout: its launches are refused, and none of its lanes roots is made.
  const plain = join(w.h.home, 'src', 'plain')
  mkdirSync(plain)
  writeProjectsYaml(
    w.h.service,
    { key: 'plain', origin: '', checkout: plain },
    { gauntlet: { roles: { builder: { model: 'm' } } } },
  )
  // One bad run key and one bad lane key: which keys are bad (characters, lengths) is proven by the rows of
  // test/domain/keys ('run key: forbidden characters…', 'lane key: length boundaries…' and their kin).
  const cases: [string[], string, Parameters<LaneWorld['start']>[1]?][] = [
    [[...b, '--key', 'k', '--prompt', 'x'], 'svc: --run is required when the launcher is a root conversation\n'],
    [
      [...b, '--run', 'R1', '--key', 'k', '--prompt', 'x'],
      "svc: invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$\n",
    ],
    [
      [...b, '--run', run, '--key', 'K', '--prompt', 'x'],
      "svc: invalid lane key 'K': it must match ^[a-z0-9][a-z0-9._-]{0,39}$\n",
    ],
    [[...b, '--run', run, '--prompt', 'x'], 'svc: one of --key or --for is required\n'],
    [
      ['--run', run, '--key', 'k', '--harness', 'none', '--prompt', 'x'],
      'svc: --role is required: one of builder, critic, verifier, play, orchestrator\n',
    ],
    [
      ['--run', run, '--key', 'k', '--role', 'boss', '--prompt', 'x'],
      "svc: --role must be one of builder, critic, verifier, play, orchestrator, not 'boss'\n",
    ],
    [
      [...b, '--run', run, '--key', 'k', '--effort', 'max', '--prompt', 'x'],
      "svc: --effort must be one of low, medium, high, not 'max'\n",
    ],
    [[...b, '--run', run, '--key', 'k'], 'svc: give exactly one of --brief <file> or --prompt <text>\n'],
    [
      [...b, '--run', run, '--key', 'k', '--prompt', 'x', '--brief', 'brief.md'],
      'svc: give exactly one of --brief <file> or --prompt <text>\n',
    ],
    [
      [...b, '--run', run, '--key', 'k', '--brief', 'missing.md'],
      `svc: cannot read the brief ${join(w.h.home, 'missing.md')}: ENOENT\n`,
    ],
    [[...b, '--run', run, '--key', 'k', '--prompt', ' \n'], 'svc: the brief is empty\n'],
    [
      ['--role', 'verifier', '--harness', 'none', '--run', run, '--key', 'k', '--prompt', 'x'],
      'svc: refused: no model for role verifier: pass --model or set gauntlet.roles.verifier.model in projects.yaml\n',
    ],
    [
      [...b, '--run', run, '--key', 'k', '--at', 'HEAD', '--prompt', 'x'],
      'svc: --at is for detached worktrees (orchestrator, critic, verifier), not builder\n',
    ],
    [
      ['--role', 'orchestrator', '--harness', 'none', '--run', run, '--key', 'k', '--from', 'main', '--prompt', 'x'],
      'svc: --from is for builder lanes, not orchestrator\n',
    ],
    [
      [...b, '--run', run, '--key', 'k', '--from', 'nope', '--prompt', 'x'],
      `svc: refused: cannot cut ${run}/k from nope: no such commit\n`,
    ],
    [
      [...b, '--run', run, '--key', 'k', '--branch', 'main', '--prompt', 'x'],
      'svc: refused: branch main already exists\n',
    ],
    [
      [...b, '--run', run, '--key', 'k', '--branch', `${run}/taken`, '--prompt', 'x'],
      `svc: refused: branch ${run}/taken already exists\n`,
    ],
    [
      ['--role', 'orchestrator', '--harness', 'none', '--run', run, '--key', 'k', '--at', 'nope', '--prompt', 'x'],
      `svc: refused: --at nope names no commit in ${w.project.checkout}\n`,
    ],
    [
      [...b, '--run', run, '--key', 'k', '--project', 'plain', '--prompt', 'x'],
      `svc: project plain: ${plain} is not a git checkout\n`,
    ],
    [
      [...b, '--run', run, '--key', 'k', '--project', 'nosuch', '--prompt', 'x'],
      `svc: no project nosuch in ${join(w.h.service, 'projects.yaml')}\n`,
    ],
    [
      [...b, '--run', run, '--key', 'k', '--prompt', 'x'],
      'svc: SERVICE_CONVERSATION is not set: run svc lane start inside a conversation, or pass --parent <conv>\n',
      { env: { SERVICE_CONVERSATION: undefined } },
    ],
    [
      [...b, '--run', run, '--key', 'k', '--prompt', 'x'],
      'svc: no conversation 999\nhint: svc conv list shows the conversations\n',
      { as: '999' },
    ],
  ]
  writeFileSync(join(w.h.home, 'brief.md'), 'a brief\n')
  for (const [args, stderr, opts] of cases) await w.refused(args, stderr, { cwd: w.h.home, ...opts })
  assert.not.ok(existsSync(`${plain}-lanes`), 'the plain project gets no lanes root')
})

test('a --from, --at or --branch that looks like an option never reaches git: refused on one line, no locked worktree, nothing left behind', async () => {
  const b = ['--role', 'builder', '--harness', 'none', '--run', run, '--key', 'k', '--prompt', 'x']
  const o = ['--role', 'orchestrator', '--harness', 'none', '--run', run, '--key', 'k', '--prompt', 'x']
  const ref = "a ref never starts with '-'; give a branch, tag or commit"
  await w.refused([...b, '--from=--lock'], `svc: --from --lock: ${ref}\n`)
  await w.refused([...b, '--from=--detach'], `svc: --from --detach: ${ref}\n`)
  await w.refused([...o, '--at=--lock'], `svc: --at --lock: ${ref}\n`)
  await w.refused([...b, '--branch=--orphan'], "svc: --branch --orphan: a branch name never starts with '-'\n")
  assert.not.match(git(w.project.checkout, 'worktree', 'list', '--porcelain'), 'locked')
  // What git is given is the commit the ref names.
  const l = await w.started([...b, '--from', 'origin/main'])
  assert.is(sha(l.cwd), sha(w.project.checkout, 'origin/main'))
})

test('projects.yaml: a wrong entry is one line naming the file and the key', async () => {
  const file = join(w.h.service, 'projects.yaml')
  const good = readFileSync(file, 'utf8')
  const args = ['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x']
  writeFileSync(file, good.replace('effort: "high"', 'effort: extreme'))
  await w.refused(
    args,
    `svc: ${file}: sample.gauntlet.roles.builder.effort: expected ("low" | "medium" | "high"), got "extreme"\n`,
  )
  writeFileSync(file, good.replace('  gauntlet:', '  gauntlet:\n    colour: blue'))
  await w.refused(args, `svc: ${file}: sample.gauntlet.colour: unknown key\n`)
  writeFileSync(file, good.replace('    roles:', '    roles:\n      boss:\n        model: m'))
  await w.refused(args, /^svc: .*projects\.yaml: sample\.gauntlet\.roles\.boss: .+\n$/)
  writeFileSync(file, good + 'broken: [\n')
  await w.refused(args, /^svc: .*projects\.yaml: not valid YAML: .+\n$/)
  writeFileSync(file, good)
  await w.started(args)
})

test('lanes_root: under /tmp, outside the home, the home itself, or containing the checkout is refused', async () => {
  const file = join(w.h.service, 'projects.yaml')
  const args = ['--run', run, '--key', 'k', '--role', 'builder', '--harness', 'none', '--prompt', 'x']
  const roots: [string, string][] = [
    ['/tmp/svc-lanes-test', 'the lanes root /tmp/svc-lanes-test lies under /tmp'],
    [join(w.h.dir, 'lanes'), `the lanes root ${join(w.h.dir, 'lanes')} is not under the home directory ${w.h.home}`],
    ['/var/lanes', `the lanes root /var/lanes is not under the home directory ${w.h.home}`],
    [w.h.home, `the lanes root ${w.h.home} is not under the home directory ${w.h.home}`],
    [
      join(w.h.home, 'src'),
      `the lanes root ${join(w.h.home, 'src')} contains the project checkout ${w.project.checkout}`,
    ],
    [w.project.checkout, `the lanes root ${w.project.checkout} contains the project checkout ${w.project.checkout}`],
  ]
  const tmp = mkdtempSync('/tmp/svc-lanes-link-')
  try {
    symlinkSync(tmp, join(w.h.home, 'lanes-link'))
    roots.push([join(w.h.home, 'lanes-link', 'x'), `the lanes root ${join(tmp, 'x')} lies under /tmp`])
    for (const [root, problem] of roots) {
      writeProjectsYaml(w.h.service, w.project, { gauntlet: { ...DEFAULT_CONFIG.gauntlet, lanes_root: root } })
      await w.refused(args, `svc: ${file}: sample.gauntlet.lanes_root: ${problem}\n`)
      assert.not.ok(existsSync(join(root, `${run}-k`)), root)
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  assert.not.ok(existsSync('/tmp/svc-lanes-test'))

  writeProjectsYaml(w.h.service, w.project, { gauntlet: { ...DEFAULT_CONFIG.gauntlet, lanes_root: '~/my-lanes' } })
  const a = await w.started(args)
  assert.is(a.cwd, join(w.h.home, 'my-lanes', `${run}-k`), '~ is the home')
  writeProjectsYaml(w.h.service, w.project, { gauntlet: { ...DEFAULT_CONFIG.gauntlet, lanes_root: '../rel-lanes' } })
  const b = await w.started(['--run', run, '--key', 'k2', '--role', 'builder', '--harness', 'none', '--prompt', 'x'])
  assert.is(b.cwd, join(w.h.home, 'src', 'rel-lanes', `${run}-k2`), 'a relative root is relative to the checkout')
  assert.is(sha(b.cwd), git(w.project.checkout, 'rev-parse', 'origin/main'))
})

test.run()
