import { mkdirSync, realpathSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join, dirname } from 'node:path'
import { Volume, createFsFromVolume } from 'memfs'
import { realAdapters, type Adapters, type Files, type Git } from '../../kernel/io/adapters.js'
import { ConfigFile } from '../../kernel/io/config.js'
import { homePaths } from '../../kernel/io/home.js'
import { intentPath } from '../../kernel/io/launch-intents.js'
import { Store } from '../../kernel/io/store.js'
import type { LaunchIntent } from '../../kernel/domain/lane-claim.js'
import { KernelContext } from '../../kernel/services/context.js'
import { Runners } from '../../kernel/services/runners.js'
import { RuntimeFacts } from '../../kernel/services/runtime-facts.js'

// A kernel context whose lane directories, launch intents and git live in memory: the files in a memfs volume, the
// repository as a small model of its worktrees and branches that answers as git would for what the services ask.
// The store and the conversations' own files stay on disk in a scratch home (they are no adapter). Every call that
// changes the repository is written to `changes`, in order, so a test reads what a service did and in which order.

/** One worktree of the model repository. */
export interface ModelWorktree {
  branch?: string
  head: string
  locked: boolean
  /** Changed and untracked paths. */
  dirty: number
  launch?: string
}

export interface MemoryWorld {
  ctx: KernelContext
  home: string
  /** The in-memory file system the lanes and intents are in. */
  fs: ReturnType<typeof createFsFromVolume>
  repo: string
  worktrees: Map<string, ModelWorktree>
  branches: Map<string, string>
  /** The repository's changes, in order: `worktree add <dir>`, `clean <dir>`, ... */
  changes: string[]
  /** Warnings the kernel logged. */
  warnings: string[]
  /** Every line the kernel logged, with its level first. */
  logged: string[]
  time: { now: number }
  /** Make the next call of a git operation fail with this message. */
  failNext: Map<keyof Git, string>
  /** Parked trees made, by directory: what the proof of a park compares. */
  proofTree: Map<string, string>
  /** `givesBack`: the tree every patch applies to from now on, whatever it was made from (a patch that lies). */
  patch: { givesBack?: string }
}

const T0 = 1_800_000_000_000
let homes = 0

/** A fresh in-memory world on a scratch home under `base`. */
export async function memoryWorld(base: string): Promise<MemoryWorld> {
  const made = join(base, `h${++homes}`)
  mkdirSync(made, { recursive: true, mode: 0o700 })
  const home = realpathSync(made)
  const fs = createFsFromVolume(new Volume())
  const repo = '/mem/src/sample'
  fs.mkdirSync(repo, { recursive: true })
  const worktrees = new Map<string, ModelWorktree>()
  const branches = new Map<string, string>([['main', 'c0']])
  const changes: string[] = []
  const warnings: string[] = []
  const failNext = new Map<keyof Git, string>()
  const proofTree = new Map<string, string>()
  const patch: { givesBack?: string } = {}
  const time = { now: T0 }
  const real = realAdapters()
  let ids = 0
  const failing = (op: keyof Git) => {
    const message = failNext.get(op)
    if (message === undefined) return
    failNext.delete(op)
    throw new Error(message)
  }
  const wt = (dir: string) => {
    const w = worktrees.get(dir)
    if (!w) throw new Error(`fatal: '${dir}' is not a working tree`)
    return w
  }
  const files: Files = {
    exists: (p) => fs.existsSync(p),
    entryExists: (p) => {
      try {
        fs.lstatSync(p)
        return true
      } catch {
        return false
      }
    },
    stat: (p) => {
      const s = fs.statSync(p, { throwIfNoEntry: false })
      return (
        s && {
          isFile: s.isFile(),
          isDirectory: s.isDirectory(),
          ino: Number(s.ino),
          size: Number(s.size),
          mtimeMs: Number(s.mtimeMs),
        }
      )
    },
    readText: async (p) => String(fs.readFileSync(p, 'utf8')),
    readTextSync: (p) => String(fs.readFileSync(p, 'utf8')),
    entries: async (d) => files.entriesSync(d),
    entriesSync: (d) =>
      fs.readdirSync(d, { withFileTypes: true }).map((e) => {
        const entry = e as { name: unknown; isDirectory(): boolean }
        return { name: String(entry.name), isDirectory: entry.isDirectory() }
      }),
    realpath: (p) => String(fs.realpathSync(p)),
    readlink: (p) => String(fs.readlinkSync(p)),
    mkdir: (p, opts) => void fs.mkdirSync(p, opts),
    removeTree: async (p, opts) => fs.rmSync(p, { recursive: true, force: Boolean(opts?.force) }),
    removeEmptyDir: (p) => fs.rmdirSync(p),
    unlink: async (p) => fs.unlinkSync(p),
    userHome: () => '/mem/home',
    freeBytes: () => 1 << 30,
  }
  const git = {
    ...real.git,
    fetchOrigin: async () => undefined,
    isWorkTree: async (d: string) => d === repo,
    revParse: async (_: string, ref: string) =>
      branches.get(ref.replace(/^refs\/heads\//, '')) ?? (/^c\d+$/.test(ref) ? ref : undefined),
    refExists: async (_: string, ref: string) => branches.has(ref.replace(/^refs\/heads\//, '')),
    worktreeAdd: async (w: { repo: string; dir: string; branch?: string; startPoint: string }) => {
      failing('worktreeAdd')
      if (w.branch && branches.has(w.branch)) throw new Error(`fatal: a branch named '${w.branch}' already exists`)
      if (fs.existsSync(w.dir)) throw new Error(`fatal: '${w.dir}' already exists`)
      fs.mkdirSync(w.dir, { recursive: true })
      fs.writeFileSync(join(w.dir, '.git'), `gitdir: ${repo}/.git/worktrees/${w.dir.split('/').pop()}\n`)
      if (w.branch) branches.set(w.branch, w.startPoint)
      worktrees.set(w.dir, { ...(w.branch ? { branch: w.branch } : {}), head: w.startPoint, locked: false, dirty: 0 })
      changes.push(`worktree add ${w.dir}`)
    },
    worktreeRemove: async (_: string, dir: string, force = false) => {
      failing('worktreeRemove')
      const w = wt(dir)
      if (w.dirty && !force) throw new Error(`fatal: '${dir}' contains modified or untracked files, use --force`)
      worktrees.delete(dir)
      fs.rmSync(dir, { recursive: true, force: true })
      changes.push(`worktree remove${force ? ' --force' : ''} ${dir}`)
    },
    undoWorktreeAdd: async (_: string, dir: string, branch?: string) => {
      await git.worktreeRemove(repo, dir, true).catch(() => {})
      if (branch) await git.deleteBranch(repo, branch).catch(() => {})
    },
    worktreePrune: async () => {
      for (const dir of worktrees.keys()) if (!fs.existsSync(dir)) worktrees.delete(dir)
      changes.push('worktree prune')
      return ''
    },
    deleteBranch: async (_: string, branch: string) => {
      branches.delete(branch)
      changes.push(`branch -D ${branch}`)
    },
    worktreeGitDir: (dir: string) =>
      worktrees.has(dir) && fs.existsSync(join(dir, '.git')) ? `${repo}/.git/worktrees/${dir}` : undefined,
    statusFacts: async (dir: string) => {
      const w = wt(dir)
      return { ...(w.branch ? { branch: w.branch } : {}), head: w.head, dirty: w.dirty > 0, dirtyPaths: w.dirty }
    },
    unseenWork: async () => ({ flagged: [], hidden: [] }),
    convertedFiles: async () => [],
    checkedOutSubmodules: async () => [],
    ignoredAtLaunch: async () => [],
    unpushedCount: async (dir: string) => (wt(dir).head === 'c0' ? 0 : 1),
    unreachableWithoutHead: async () => 0,
    checkoutTree: async (dir: string) => `base-of-${wt(dir).head}`,
    snapshotTree: async (dir: string) => `tree-${wt(dir).dirty}-${fs.readdirSync(dir).length}`,
    addedGitlinks: async () => [],
    diffBinaryToFile: async (dir: string, _from: string, to: string, path: string) => {
      failing('diffBinaryToFile')
      await writeFile(path, `patch of ${dir} to ${to}\n`)
      proofTree.set(dir, to)
    },
    treeFromPatch: async (dir: string) => {
      failing('treeFromPatch')
      return patch.givesBack ?? proofTree.get(dir)!
    },
    rawMismatches: async () => [],
    keepTree: async (_dir: string, tree: string, ref: string) => {
      changes.push(`keep ${tree} at ${ref}`)
      return `commit-of-${tree}`
    },
    cleanTree: async (dir: string) => {
      failing('cleanTree')
      wt(dir).dirty = 0
      for (const name of fs.readdirSync(dir)) if (String(name) !== '.git') fs.rmSync(join(dir, String(name)))
      changes.push(`clean ${dir}`)
    },
  } satisfies Git
  const launchIds = new Map<string, string>()
  const io: Adapters = {
    ...real,
    files,
    git,
    dirs: {
      writeLaunchId: async (dir, id) => {
        if (!worktrees.has(dir)) throw new Error(`${dir} is not a git worktree`)
        launchIds.set(dir, id)
      },
      dirIdOf: (dir) => {
        const s = fs.statSync(dir, { throwIfNoEntry: false })
        return s ? `mem:${s.ino}` : undefined
      },
      identityOf: (dir) => ({
        launch: worktrees.has(dir) ? launchIds.get(dir) : undefined,
        dirId: io.dirs.dirIdOf(dir),
      }),
      entriesOf: (dir) => {
        try {
          return fs.readdirSync(dir).map(String)
        } catch {
          return []
        }
      },
      worktreeAt: async (_, dir) => {
        const w = worktrees.get(dir)
        return w && { ...(w.branch ? { branch: w.branch } : {}), locked: w.locked }
      },
    },
    intents: {
      intentPath,
      recordIntent: async (h, intent) => {
        const path = intentPath(h, intent.dir)
        fs.mkdirSync(dirname(path), { recursive: true })
        try {
          fs.writeFileSync(path, JSON.stringify(intent) + '\n', { flag: 'wx' })
          return true
        } catch {
          return false
        }
      },
      readIntent: (path) => {
        if (!fs.existsSync(path)) return undefined
        return JSON.parse(String(fs.readFileSync(path, 'utf8'))) as LaunchIntent
      },
      intentFiles: (h) => {
        const dir = homePaths(h).launches
        const names = fs.existsSync(dir) ? fs.readdirSync(dir).map(String) : []
        return { intents: names.filter((n) => n.endsWith('.json')).map((n) => join(dir, n)), temps: [] }
      },
      dropIntent: async (path) => {
        if (fs.existsSync(path)) fs.unlinkSync(path)
      },
    },
    procs: { ...real.procs, processesInside: async () => [], startedWithin: () => false },
    clock: { now: () => time.now },
    ids: { ...real.ids, uuid: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}` },
    fault: { point: () => {}, flag: () => false },
    timing: (_, ms) => ms,
  }
  const logged: string[] = []
  const log = (level: string, message: string) => {
    logged.push(`${level} ${message}`)
    if (level === 'warn') warnings.push(message)
  }
  const ctx = await kernelContextOn(home, io, log as KernelContext['log'])
  return { ctx, home, fs, repo, worktrees, branches, changes, warnings, logged, time, failNext, proofTree, patch }
}

/** A kernel context on `home` (its store opened there) reaching the outside through `io`. */
export async function kernelContextOn(home: string, io: Adapters, log: KernelContext['log'] = () => {}) {
  const facts = new RuntimeFacts(home, io.files)
  return new KernelContext(
    home,
    await Store.open(home),
    facts,
    new Runners(home, '/no-runner', facts, () => {}, io),
    new ConfigFile(join(home, 'projects.yaml')),
    log,
    join(home, 'bin'),
    'test',
    io,
  )
}
