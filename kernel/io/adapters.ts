import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { askRunner } from './runner-link.js'
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  statSync,
  statfsSync,
} from 'node:fs'
import { readdir, readFile, rm, unlink } from 'node:fs/promises'
import { homedir } from 'node:os'
import { appendLine, createFileOnce, publishFileOnce, writeFileAtomic } from './atomic-file.js'
import { faultFlag, faultPoint } from './fault.js'
import { postJson } from './http-post.js'
import { dropIntent, intentFiles, intentPath, readIntent, recordIntent } from './launch-intents.js'
import { NotifyConfigFile } from './notify-config-file.js'
import { startDetached } from './process.js'
import { runCommand } from './run-command.js'
import { harnessFact, toolFact, writable } from './tools.js'
import { HostsFile } from './hosts/hosts-file.js'
import { hostRunnerFile } from './hosts/runner-file.js'
import { openLineStream } from './hosts/stream.js'
import { fetchFromHost } from './hosts/fetch.js'
import { controlDir, forgetHostKey, keyFingerprint, recordHostKey, recordedHostKey, runSsh } from './hosts/ssh.js'
import { GhTracker, ghAuthStatus } from './trackers/gh.js'
import { LocalIssues } from './trackers/local.js'
import * as gitCore from './git.js'
import { diffAgainst } from './git-diff.js'
import { cleanTree, diffBinaryToFile, keepTree, rawMismatches, treeFromPatch } from './git-patch.js'
import { checkedOutSubmodules, checkoutTree, convertedFiles } from './git-raw.js'
import { addedGitlinks, snapshotTree } from './git-snapshot.js'
import { ignoredAtLaunch, unseenWork } from './git-unseen.js'
import { dirIdOf, entriesOf, identityOf, worktreeAt, writeLaunchId } from './lane-dir.js'
import { endDescendants, pidNamespaceProbe } from './subreaper.js'
import {
  startedWithin,
  groupAlive,
  isAlive,
  ownGroupAlive,
  pidInUse,
  processesInside,
  processStartTime,
  signalGroup,
  signalProcess,
} from './procs.js'
import { testTiming } from './test-timing.js'
import { peers, type Peers } from './peer.js'

/** What the kernel's services reach the outside through (KernelContext.io): the files, git, processes, clock,
 * random ids and test hooks. The kernel builds the real set (realAdapters); a test may give any of them its own. */
export interface Adapters {
  files: Files
  /** Writes that never leave a file half-written (io/atomic-file). */
  writes: Writes
  /** What identifies a lane's directory, and what it holds (io/lane-dir). */
  dirs: Dirs
  /** The launch intents written before a launch touches git (io/launch-intents). */
  intents: Intents
  /** The issue trackers: GitHub through gh, and the local issue files. */
  trackers: Trackers
  /** Where notifications go: the notify.yaml file, a webhook, a command. */
  notify: NotifyIo
  /** What svc doctor asks of the machine: the tools on the PATH, gh's login, a directory's write access. */
  tools: Tools
  /** Other machines: hosts.yaml, the system ssh, the service's own known hosts (io/hosts). */
  hosts: HostsIo
  git: Git
  procs: Procs
  clock: Clock
  ids: Ids
  /** The processes behind the current request's connection (io/peer): who is calling, as the kernel can verify. */
  peers: Pick<Peers, 'lineage'>
  fault: FaultHook
  /** A timing a test build may shorten (io/test-timing): the value for `name`, else `defaultMs`. */
  timing: (name: string, defaultMs: number) => number
}

interface Clock {
  now(): number
}

/** The test fault hook (io/fault.ts): `point` may end the process at a named step, `flag` makes an operation
 * fail as if it had failed. Both do nothing outside a test build. */
interface FaultHook {
  point(step: string): void
  flag(name: string): boolean
}

export interface Ids {
  uuid(): string
  /** `bytes` random bytes, base64url. */
  token(bytes: number): string
  /** The SHA-256 of a text, hex. */
  sha256(text: string): string
}

export interface Entry {
  name: string
  isDirectory: boolean
}

interface FileStat {
  isFile: boolean
  isDirectory: boolean
  ino: number
  size: number
  mtimeMs: number
}

export interface Files {
  exists(path: string): boolean
  /** Something is at the path, a dangling symlink included. */
  entryExists(path: string): boolean
  /** The path's stat (symlinks followed), or undefined when nothing is there. */
  stat(path: string): FileStat | undefined
  readText(path: string): Promise<string>
  readTextSync(path: string): string
  entries(dir: string): Promise<Entry[]>
  entriesSync(dir: string): Entry[]
  realpath(path: string): string
  readlink(path: string): string
  mkdir(path: string, opts: { recursive?: boolean; mode: number }): void
  /** Remove a directory tree; `force`: nothing there is no error. */
  removeTree(path: string, opts?: { force?: boolean }): Promise<void>
  removeEmptyDir(path: string): void
  unlink(path: string): Promise<void>
  /** The user's home directory ($HOME, else the system's). */
  userHome(): string
  /** Bytes free for this process on the filesystem holding `path`. */
  freeBytes(path: string): number
}

export interface Procs {
  isAlive: typeof isAlive
  pidInUse: typeof pidInUse
  groupAlive: typeof groupAlive
  ownGroupAlive: typeof ownGroupAlive
  signalGroup: typeof signalGroup
  signalProcess: typeof signalProcess
  processesInside: typeof processesInside
  startedWithin: typeof startedWithin
  /** Ends every process below a process, whatever its group (io/subreaper). */
  endDescendants: typeof endDescendants
  /** Start a process in a process group of its own, its output appended to `logFile`; its pid and start time if it
   * started (the two name one process: pids are reused). */
  spawnDetached(
    command: string,
    args: string[],
    opts: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; onError: (e: Error) => void },
  ): { pid: number; start: string | undefined } | undefined
  /** One request to the home's runner on its socket, and its answer (io/runner-link). */
  askRunner: typeof askRunner
}

const entry = (d: { name: string; isDirectory(): boolean }): Entry => ({ name: d.name, isDirectory: d.isDirectory() })

export const realFiles: Files = {
  exists: existsSync,
  entryExists: (path) => {
    try {
      lstatSync(path)
      return true
    } catch {
      return false
    }
  },
  stat: (path) => {
    const s = statSync(path, { throwIfNoEntry: false })
    return s && { isFile: s.isFile(), isDirectory: s.isDirectory(), ino: s.ino, size: s.size, mtimeMs: s.mtimeMs }
  },
  readText: (path) => readFile(path, 'utf8'),
  readTextSync: (path) => readFileSync(path, 'utf8'),
  entries: async (dir) => (await readdir(dir, { withFileTypes: true })).map(entry),
  entriesSync: (dir) => readdirSync(dir, { withFileTypes: true }).map(entry),
  realpath: (path) => realpathSync(path),
  readlink: (path) => readlinkSync(path),
  mkdir: (path, opts) => void mkdirSync(path, opts),
  removeTree: (path, opts) => rm(path, { recursive: true, force: Boolean(opts?.force) }),
  removeEmptyDir: (path) => rmdirSync(path),
  unlink: (path) => unlink(path),
  userHome: () => process.env.HOME || homedir(),
  freeBytes: (path) => {
    const s = statfsSync(path)
    return s.bavail * s.bsize
  },
}

const realProcs: Procs = {
  isAlive,
  pidInUse,
  groupAlive,
  ownGroupAlive,
  signalGroup,
  signalProcess,
  processesInside,
  startedWithin,
  endDescendants,
  askRunner,
  spawnDetached(command, args, { cwd, env, logFile, onError }) {
    const out = openSync(logFile, 'a', 0o600)
    try {
      const { pid } = startDetached([command, ...args], { stdio: ['ignore', out, out], cwd, env, onError })
      return pid === undefined ? undefined : { pid, start: processStartTime(pid) }
    } finally {
      closeSync(out)
    }
  },
}

/** The git operations of io/git*.ts that services use. */
const realGit = {
  gitTry: gitCore.gitTry,
  fetchOrigin: gitCore.fetchOrigin,
  revParse: gitCore.revParse,
  refExists: gitCore.refExists,
  isWorkTree: gitCore.isWorkTree,
  originHead: gitCore.originHead,
  worktreeAdd: gitCore.worktreeAdd,
  undoWorktreeAdd: gitCore.undoWorktreeAdd,
  worktreeRemove: gitCore.worktreeRemove,
  worktreePrune: gitCore.worktreePrune,
  deleteBranch: gitCore.deleteBranch,
  statusFacts: gitCore.statusFacts,
  parseStatus: gitCore.parseStatus,
  worktreeGitDir: gitCore.worktreeGitDir,
  worktreeStamp: gitCore.worktreeStamp,
  unpushedCount: gitCore.unpushedCount,
  unreachableWithoutHead: gitCore.unreachableWithoutHead,
  keepHead: gitCore.keepHead,
  gitPlaces: gitCore.gitPlaces,
  presetUpstream: gitCore.presetUpstream,
  diffAgainst,
  snapshotTree,
  addedGitlinks,
  diffBinaryToFile,
  treeFromPatch,
  rawMismatches,
  checkoutTree,
  convertedFiles,
  checkedOutSubmodules,
  keepTree,
  cleanTree,
  ignoredAtLaunch,
  unseenWork,
}
export type Git = typeof realGit

const realWrites = { writeFileAtomic, createFileOnce, publishFileOnce, appendLine }
export type Writes = typeof realWrites

const realDirs = { writeLaunchId, dirIdOf, identityOf, entriesOf, worktreeAt }
type Dirs = typeof realDirs

const realIntents = { intentPath, recordIntent, readIntent, intentFiles, dropIntent }
type Intents = typeof realIntents

const realTrackers = {
  gh: () => new GhTracker(),
  local: (dir: string, project: string) => new LocalIssues(dir, project),
}
type Trackers = typeof realTrackers

const realNotify = { configFile: (path: string) => new NotifyConfigFile(path), postJson, runCommand }
type NotifyIo = typeof realNotify

const realTools = { harnessFact, toolFact, writable, ghAuthStatus, pidNamespaceProbe }
type Tools = typeof realTools

const realHosts = {
  file: (path: string) => new HostsFile(path),
  runSsh,
  controlDir,
  forgetHostKey,
  recordHostKey,
  recordedHostKey,
  keyFingerprint,
  openLineStream,
  hostRunnerFile,
  fetchFromHost,
}
export type HostsIo = typeof realHosts

export const realIds: Ids = {
  uuid: randomUUID,
  token: (bytes) => randomBytes(bytes).toString('base64url'),
  sha256: (text) => createHash('sha256').update(text).digest('hex'),
}

/** The adapters of a running kernel. */
export function realAdapters(): Adapters {
  return {
    files: realFiles,
    writes: realWrites,
    dirs: realDirs,
    intents: realIntents,
    trackers: realTrackers,
    notify: realNotify,
    tools: realTools,
    hosts: realHosts,
    git: realGit,
    procs: realProcs,
    clock: { now: Date.now },
    ids: realIds,
    peers,
    fault: { point: faultPoint, flag: faultFlag },
    timing: testTiming,
  }
}
