import { execFile } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { TestHome, alive, until } from '../helpers/home.js'
import { Gates } from '../helpers/gates.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { kernelApi } from './api-kit.js'
import type { Report } from '../../kernel/domain/report.js'
import type { PortInput } from '../../kernel/port/port.js'

/** The shared world of the list, show, stop and reap suites: a throwaway home, the sample project, a root
 * conversation, and shell lanes gated on files in the test HOME. */
export class World {
  readonly h: TestHome
  s!: Setup
  /** The run of the lanes a test starts: a suite that shares one world among its tests gives each a run of its own. */
  run = 'r1'
  private readonly gates: Gates

  constructor(label: string, env: Record<string, string> = {}) {
    this.h = new TestHome(label)
    this.h.extraEnv = env
    // These suites' `svc` calls are the person's, read what the CLI prints and exits with, and need no process of
    // their own: each runs the CLI's dispatch here, without a Node start (what the lanes run stays a real `svc`).
    this.h.inProcess = true
    this.gates = new Gates(this.h.home)
  }

  async begin(): Promise<this> {
    this.s = await setupProject(this.h)
    return this
  }

  get lanes() {
    return this.s.lanesRoot
  }

  get checkout() {
    return this.s.project.checkout
  }

  /** `svc lane start --run <run> <args>` from the root conversation (or `as`), asked over the kernel's port: these
   * suites test what lanes do, not the start's CLI (the lane-start suites do); returns the conv id. */
  async start(args: string[], run = this.run, as = this.s.root): Promise<string> {
    const r = await (
      await this.h.port()
    ).laneStart({ ...startRequest(args), run, conversation: as, cwd: this.h.home } as PortInput<'laneStart'>)
    return r.lane.id
  }

  /** A builder lane with no harness in the world's run under the root conversation, its worktree at the branch's
   * head: what the park suites fill with work to reap. Its name and worktree. */
  async idleLane(key: string): Promise<{ name: string; dir: string }> {
    const started = await kernelApi(this.h).post('/api/lanes', {
      run: this.run,
      key,
      role: 'builder',
      harness: 'none',
      noWait: true,
      prompt: 'x',
      conversation: this.s.root,
    })
    if (started.status !== 201) throw new Error(`lane ${key} did not start: ${JSON.stringify(started.body)}`)
    return { name: `${this.run}-${key}-builder-i1`, dir: join(this.lanes, `${this.run}-${key}`) }
  }

  /** `svc lane wait <lane>` asked over the kernel's port: the lane's first report; an end with none fails. */
  async waited(lane: string): Promise<Report> {
    const port = await this.h.port()
    for (;;) {
      const r = await port.laneWait({ lane, timeoutMs: 60_000 })
      if (r.kind === 'report') return r.report
      if (r.kind !== 'pending') throw new Error(`${lane}: ${r.detail}`)
    }
  }

  /** A shell line that blocks until `open(n)` (of the same run: the gates and marks of one run are its own). */
  gate(n: string) {
    return this.gates.line(`${this.run}-${n}`)
  }

  open(n: string) {
    this.gates.open(`${this.run}-${n}`)
  }

  /** A shell line that marks a point reached; `reached(n)` waits for it. */
  mark(n: string) {
    return `touch ${this.h.home}/at-${this.run}-${n}`
  }

  reached(n: string) {
    return until(() => existsSync(join(this.h.home, `at-${this.run}-${n}`)), `point ${n}`)
  }

  convDir(name: string) {
    return join(this.h.service, 'agents', `conv-${name}`)
  }

  state(name: string): any {
    try {
      return JSON.parse(readFileSync(join(this.convDir(name), 'state.json'), 'utf8'))
    } catch {
      return undefined
    }
  }

  /** What `svc conv show <ref> --json` prints, asked over the kernel's port. */
  async conv(ref: string): Promise<any> {
    return (await this.h.port()).convShow({ conv: ref })
  }

  /** The lane's row of `svc lane list --json`, asked over the kernel's port. */
  async lane(ref: string): Promise<any> {
    const id = (await this.conv(ref)).id
    return (await (await this.h.port()).laneList({})).find((l) => l.id === id)
  }

  /** Wait until the lane's harness has been started (its pid published). */
  harnessPid(name: string): Promise<number> {
    return until(() => this.state(name)?.harness?.pid as number, `harness of ${name}`)
  }

  stop() {
    this.gates.close()
    return this.h.stop()
  }
}

/** The request `svc lane start` makes of its flags: `--name value` pairs, and `--no-wait`. */
export function startRequest(args: string[]): Record<string, unknown> {
  const req: Record<string, unknown> = {}
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--no-wait') req.noWait = true
    else req[args[i].slice(2)] = args[++i]
  }
  return req
}

/** Every file under a directory (the .git entry aside): mode, symlink target or bytes, and each directory unless
 * `dirs` is false (git records no directory, so a patch cannot bring back an empty one). Equal snapshots mean not
 * one byte changed. */
export function filesOf(dir: string, dirs = true): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const p = join(rel, name)
      if (p === '.git') continue
      const st = lstatSync(join(dir, p))
      if (st.isSymbolicLink()) out[p] = `link ${readlinkSync(join(dir, p))}`
      else if (st.isDirectory()) {
        if (dirs) out[p + '/'] = `dir ${(st.mode & 0o777).toString(8)}`
        walk(p)
      } else out[p] = `file ${(st.mode & 0o777).toString(8)} ${readFileSync(join(dir, p)).toString('base64')}`
    }
  }
  walk('')
  return out
}

export const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
}
const run = promisify(execFile)

/** git, asynchronously (so several cases can be under way at once). */
export async function gitA(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await run('git', args, { cwd, env: { ...gitEnv, ...env }, maxBuffer: 64 * 1024 * 1024 })
  return r.stdout.trim()
}

/** The tree of everything in a worktree (tracked changes and untracked files), through a temporary index. */
export async function worktreeTree(dir: string): Promise<string> {
  const index = join(dir, '..', `.idx-${process.pid}-${Math.random().toString(36).slice(2)}`)
  try {
    const e = { GIT_INDEX_FILE: index }
    await gitA(dir, ['read-tree', 'HEAD'], e)
    await gitA(dir, ['add', '-A'], e)
    return await gitA(dir, ['write-tree'], e)
  } finally {
    rmSync(index, { force: true })
  }
}

/** The tree a patch file makes of a commit, applied in a temporary index of the repository. A tree equal to the
 * commit parks as an empty patch, which changes nothing. */
export async function treeOfPatch(repo: string, commit: string, patch: string): Promise<string> {
  const index = join(repo, '..', `.idx-${process.pid}-${Math.random().toString(36).slice(2)}`)
  try {
    const e = { GIT_INDEX_FILE: index }
    await gitA(repo, ['read-tree', commit], e)
    await gitA(repo, ['apply', '--cached', '--binary', '--allow-empty', patch], e)
    return await gitA(repo, ['write-tree'], e)
  } finally {
    rmSync(index, { force: true })
  }
}

export { alive }
