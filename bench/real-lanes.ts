import { execFile, spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { ConversationRecord } from '../kernel/domain/conversation.js'
import { convFiles } from '../kernel/io/home.js'
import { processStartTime } from '../kernel/io/procs.js'
import { Limiter } from '../kernel/queue/serial.js'
import type { benchHome } from './lib.js'

const run = promisify(execFile)
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
}
const git = (cwd: string, ...args: string[]) => run('git', args, { cwd, env: GIT_ENV })

/** `git worktree add` of a new branch at main. Adds side by side sometimes read each other's administrative files
 * half made (`failed to read .git/worktrees/<other>/commondir`): such an add is made again. */
async function addWorktree(checkout: string, branch: string, dir: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      await git(checkout, 'worktree', 'add', '-q', '-B', branch, dir, 'main')
      return
    } catch (e) {
      if (attempt === 5) throw e
      rmSync(dir, { recursive: true, force: true })
      await new Promise((r) => setTimeout(r, 50 * attempt))
    }
  }
}

/** Lanes written per run key. */
export const PER_RUN = 50

export interface RealLanes {
  /** The project's key in projects.yaml, its checkout and the lanes root. */
  project: string
  checkout: string
  root: string
  /** The root conversation (harness none) every lane was launched by. */
  rootId: string
  /** End the live harnesses' stand-ins. */
  stop(): void
}

/** `n` real lanes of project `bench` as a kernel would have left them, in runs `r0`, `r1`, ... of PER_RUN: each a
 * builder worktree on disk on its own branch, launched by one root conversation; a tenth with a live harness (a
 * process whose pid and start time its state names), the rest ended. Written before any kernel starts. */
export async function writeRealLanes(h: ReturnType<typeof benchHome>, n: number): Promise<RealLanes> {
  const origin = join(h.home, 'origin.git')
  const checkout = join(h.home, 'src', 'bench')
  const root = join(h.home, 'src', 'bench-lanes')
  mkdirSync(checkout, { recursive: true })
  mkdirSync(root, { recursive: true })
  await git(h.home, 'init', '-q', '--bare', origin)
  await git(checkout, 'init', '-q', '-b', 'main')
  for (const d of ['src/a', 'src/b', 'test']) mkdirSync(join(checkout, d), { recursive: true })
  for (const f of ['README.md', 'src/a/one.ts', 'src/b/two.ts', 'test/t.ts']) writeFileSync(join(checkout, f), `${f}\n`)
  await git(checkout, 'add', '-A')
  await git(checkout, 'commit', '-qm', 'start')
  await git(checkout, 'remote', 'add', 'origin', origin)
  await git(checkout, 'push', '-q', '-u', 'origin', 'main')
  writeFileSync(join(h.service, 'projects.yaml'), `bench:\n  path: ${checkout}\n  gauntlet:\n    lanes_root: ${root}\n`)
  const now = Date.now() - 3600_000
  const write = (rec: ConversationRecord) => {
    const files = convFiles(h.service, rec.name)
    mkdirSync(files.dir, { recursive: true })
    writeFileSync(files.record, JSON.stringify(rec))
  }
  write({ id: '1', name: 'root', createdAt: now, harness: 'none', cwd: checkout, project: 'bench' })
  const sleepers: ReturnType<typeof spawn>[] = []
  // Four worktrees added at once: one at a time took 170 s for 1000 on this two-core machine.
  const four = new Limiter(4)
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      four.run(async () => {
        const run = `r${Math.floor(i / PER_RUN)}`
        const key = `k${i % PER_RUN}`
        const dir = `${run}-${key}`
        await addWorktree(checkout, `${run}/${key}`, join(root, dir))
        const name = `${run}-${key}-builder-i1`
        write({
          id: String(i + 2),
          name,
          createdAt: now + i,
          parent: '1',
          harness: 'shell',
          cwd: join(root, dir),
          project: 'bench',
          lane: { run, key, role: 'builder', dir, root, iteration: 1, repo: checkout, branch: `${run}/${key}` },
        })
        const files = convFiles(h.service, name)
        if (i % 10 === 0) {
          const p = spawn('sleep', ['900'], { stdio: 'ignore' })
          sleepers.push(p)
          const id = { pid: p.pid!, start: processStartTime(p.pid!) ?? '' }
          const state = {
            runner: id,
            harness: { ...id, at: now + i },
            phase: { value: 'working', source: 'bench', at: now + i },
          }
          writeFileSync(files.state, JSON.stringify(state))
        } else {
          const state = {
            runner: { pid: 1, start: 'gone' },
            ended: { at: now + i, exitCode: 0, signal: null, source: 'process exit' },
          }
          writeFileSync(files.state, JSON.stringify(state))
        }
      }),
    ),
  )
  return {
    project: 'bench',
    checkout,
    root,
    rootId: '1',
    stop: () => sleepers.forEach((p) => p.kill()),
  }
}
