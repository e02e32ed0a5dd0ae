import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { writeProjectsYaml, type ProjectConfig, type SampleProject } from '../../cli/demo/sample-project.js'
import { TestHome, git, launchGroupsOfHome, until, type Result } from '../helpers/home.js'
import { sampleProject } from '../helpers/project.js'

/** The shared world of the `svc lane start` end-to-end suites: a throwaway home with a git identity, a sample
 * project (bare origin + checkout) listed in projects.yaml, and a root conversation to launch from. */
export class LaneWorld {
  readonly h: TestHome
  readonly project: SampleProject
  /** Where the scripts of shell lanes write what they saw. */
  out: string
  root = ''

  constructor(
    label: string,
    private readonly config: ProjectConfig = DEFAULT_CONFIG,
  ) {
    this.h = new TestHome(label)
    writeFileSync(join(this.h.home, '.gitconfig'), '[user]\n\tname = Lane Test\n\temail = lane@example.com\n')
    this.project = sampleProject(join(this.h.home, 'src'))
    this.out = join(this.h.dir, 'out')
    mkdirSync(this.out)
    writeProjectsYaml(this.h.service, this.project, config)
  }

  /** For a suite whose tests share one world, before each test: projects.yaml as the world began, whatever a test
   * wrote there since, and a directory of the test's own (named after its run) for what its lanes write. */
  nextTest(run: string): void {
    rmSync(join(this.h.service, 'projects.yaml'), { force: true })
    writeProjectsYaml(this.h.service, this.project, this.config)
    this.out = join(this.h.dir, `out-${run}`)
    mkdirSync(this.out)
  }

  /** Default lanes root: a sibling of the checkout. */
  get lanes(): string {
    return `${this.project.checkout}-lanes`
  }

  /** Create the root conversation, as `svc conv new --harness none --project sample` does (this starts the kernel,
   * with `env` if given). */
  async begin(env: Record<string, string | undefined> = {}): Promise<string> {
    this.root = (await (await this.h.port(env)).convNew({ harness: 'none', project: 'sample' })).id
    return this.root
  }

  /** `svc lane start ...` launched by the root conversation (or `as`): the CLI's own dispatch run in this process
   * (what a process of its own prints and exits with, without a Node start per call; the root conversation is acted
   * as by its id from any process no lane started, this one as well as a child), or with `process` a real `svc`. */
  start(
    args: string[],
    opts: { as?: string; env?: Record<string, string | undefined>; cwd?: string; process?: boolean } = {},
  ): Promise<Result> {
    return this.h.svc(['lane', 'start', ...args], {
      env: { SERVICE_CONVERSATION: opts.as ?? this.root, ...opts.env },
      cwd: opts.cwd,
      here: !opts.process,
    })
  }

  /** A start that must succeed: returns the parsed line. */
  async started(args: string[], opts: Parameters<LaneWorld['start']>[1] = {}): Promise<Launched> {
    const r = await this.start(args, opts)
    if (r.code !== 0)
      throw new Error(`svc lane start ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`)
    assert.is(r.stderr, '', 'a successful start prints nothing on stderr')
    return parseLine(r.stdout)
  }

  /** What `svc conv show <id> --json` prints, asked over the kernel's port. */
  async show(id: string): Promise<any> {
    return (await this.h.port()).convShow({ conv: id })
  }

  /** How many conversations the kernel lists (asked over its port: a CLI process per snapshot is slow). */
  async convCount(): Promise<number> {
    return (await (await this.h.port()).convList({})).length
  }

  /** Everything a launch could leave behind. */
  async snapshot(): Promise<Snapshot> {
    return {
      lanes: existsSync(this.lanes) ? readdirSync(this.lanes).sort() : [],
      branches: git(this.project.checkout, 'branch', '--list', '--format=%(refname:short)'),
      worktrees: git(this.project.checkout, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .sort(),
      convs: await this.convCount(),
      agents: readdirSync(join(this.h.service, 'agents')).sort(),
      groups: launchGroupsOfHome(this.h.service, this.h.kernelFile()?.pid),
    }
  }

  /** A start that must be refused: exit 1, exactly this stderr (a string, or a pattern for the whole of it), nothing
   * on stdout, and nothing left behind. */
  async refused(args: string[], stderr: string | RegExp, opts: Parameters<LaneWorld['start']>[1] = {}): Promise<void> {
    const before = await this.snapshot()
    const r = await this.start(args, opts)
    const what = `svc lane start ${args.join(' ')}`
    assert.is(r.code, 1, `${what}: exit code (stderr: ${r.stderr})`)
    if (typeof stderr === 'string') assert.is(r.stderr, stderr, what)
    else assert.match(r.stderr, stderr, what)
    assert.is(r.stdout, '', what)
    const { groups, ...after } = await this.snapshot()
    const { groups: groupsBefore, ...rest } = before
    assert.equal(after, rest, `${what}: nothing left behind`)
    // Runners of earlier lanes may end meanwhile; none may appear.
    assert.equal(
      groups.filter((g) => !groupsBefore.includes(g)),
      [],
      `${what}: no new runner or harness`,
    )
  }

  /** Wait for a file a lane's script writes last, then read a file it wrote. */
  async outFile(name: string, what = name): Promise<string> {
    const p = join(this.out, name)
    await until(() => existsSync(p), what, 30_000)
    return readFileSync(p, 'utf8')
  }

  /** Wait until the conversation's activity is `value`. */
  async until(id: string, value: string): Promise<any> {
    return until(
      async () => {
        const v = await this.show(id)
        return v.activity === value && v
      },
      `conv ${id} ${value}`,
      30_000,
    )
  }

  agentFile(name: string, file: string): string {
    return readFileSync(join(this.h.service, 'agents', `conv-${name}`, file), 'utf8')
  }

  stop(): Promise<void> {
    return this.h.stop()
  }
}

export const DEFAULT_CONFIG: ProjectConfig = {
  gauntlet: {
    roles: {
      builder: { model: 'model-b', effort: 'high' },
      orchestrator: { model: 'model-o' },
      critic: { model: 'model-c', effort: 'low' },
    },
  },
}

export interface Snapshot {
  lanes: string[]
  branches: string
  worktrees: string[]
  convs: number
  agents: string[]
  /** Process groups of runners and their harnesses. */
  groups: number[]
}

export interface Launched {
  run: string
  key: string
  role: string
  iteration: number
  id: string
  name: string
  cwd: string
  line: string
}

const LINE = /^Lane ([a-z0-9-]+)\/(\S+) (\w+) i(\d+): conv (\d+) \((\S+)\) in (\/.+)\n$/

export function parseLine(stdout: string): Launched {
  const m = LINE.exec(stdout)
  if (!m) throw new Error(`not a start line: ${JSON.stringify(stdout)}`)
  return { run: m[1], key: m[2], role: m[3], iteration: Number(m[4]), id: m[5], name: m[6], cwd: m[7], line: stdout }
}

/** The exact line `start` prints. */
export const startLine = (run: string, key: string, role: string, n: number, id: string, name: string, cwd: string) =>
  `Lane ${run}/${key} ${role} i${n}: conv ${id} (${name}) in ${cwd}\n`

/** The commit a ref names in a repository. */
export const sha = (cwd: string, ref = 'HEAD') => git(cwd, 'rev-parse', ref)

/** The branch checked out in a worktree, or undefined when it is detached. */
export function branchOf(cwd: string): string | undefined {
  try {
    return git(cwd, 'symbolic-ref', '--quiet', '--short', 'HEAD')
  } catch {
    return undefined
  }
}

/** A single-quoted bash word. */
export const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
