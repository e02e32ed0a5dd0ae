/** Issue 27 placement: where a lane runs. `svc lane start --host <name>`, else the role's `host` in the project's
 * gauntlet block, else the project's `gauntlet.host`; none of them: at home. These are its rules: which host, what
 * may run there, the lane's directory on the host and the commands that make it there. */

import type { Harness, Role } from './keys.js'
import { REMOTE_DIR } from './hosts.js'
import { allow, refuse, type Decision } from './refusal.js'

/** Roles that stay at home whatever the project's default says: an orchestrator launches and waits through the
 * kernel, and a play lane has no service context to carry. Named with --host or a role's own host, they are refused. */
const HOME_ROLES: readonly Role[] = ['orchestrator', 'play']

export interface PlacementAsk {
  role: Role
  harness: Harness
  /** `--host`. */
  flag?: string
  /** `gauntlet.roles.<role>.host`. */
  roleHost?: string
  /** `gauntlet.host`: the project's default. */
  projectHost?: string
  /** The hosts hosts.yaml lists. */
  hosts: readonly string[]
}

/** Where a lane runs: a host of hosts.yaml (`host`), or at home (no `host`); refused with the fix when the host is
 * not listed, or the role or harness cannot run on a host. */
export function placeLane(a: PlacementAsk): Decision<{ host?: string }> {
  const named = a.flag ?? a.roleHost
  const host = named ?? (HOME_ROLES.includes(a.role) ? undefined : a.projectHost)
  if (host === undefined) return allow({})
  const from = a.flag !== undefined ? '--host' : a.roleHost !== undefined ? `roles.${a.role}.host` : 'gauntlet.host'
  if (!a.hosts.includes(host))
    return refuse(
      'not_found',
      `refused: ${from} names host ${JSON.stringify(host)}, which is not in hosts.yaml`,
      a.hosts.length ? `hosts: ${a.hosts.join(', ')}` : `add it: svc host add ${host} --ssh user@address`,
    )
  if (HOME_ROLES.includes(a.role))
    return refuse(
      'usage',
      `refused: a${a.role === 'orchestrator' ? 'n' : ''} ${a.role} lane runs at home, not on host ${host}`,
      a.flag !== undefined ? 'leave out --host' : `remove ${from} from projects.yaml`,
    )
  return hostRunsHarness(host, a.harness)
}

/** Issue 27, `--reuse` (SPEC.md 4.1 start): the new lane runs where the earlier lane's directory is, on its host or at
 * home, whatever the project's defaults say. `--host` naming another place is refused, as are a host no longer in
 * hosts.yaml and a harness the host cannot run. */
export function placeReuse(a: {
  earlier: { id: string; dir: string; host?: string }
  flag?: string
  harness: Harness
  hosts: readonly string[]
}): Decision<{ host?: string }> {
  const { host, dir } = a.earlier
  if (a.flag !== undefined && a.flag !== host)
    return refuse(
      'usage',
      `--host ${JSON.stringify(a.flag)} does not go with --reuse: the lane continues in ${dir} ` +
        `${host === undefined ? 'at home' : `on host ${host}`} as it is`,
    )
  if (host === undefined) return allow({})
  if (!a.hosts.includes(host))
    return refuse(
      'not_found',
      `refused: the directory of conv ${a.earlier.id} is on host ${JSON.stringify(host)}, which is not in hosts.yaml`,
      `add it back (svc host add ${host} --ssh user@address), or start a new iteration`,
    )
  return hostRunsHarness(host, a.harness)
}

/** What a host runs: a lane's brief as a shell script, under the host runner. The other harnesses need their CLI
 * and its login on the host, which the runner does not drive yet. */
export function hostRunsHarness(host: string, harness: Harness): Decision<{ host: string }> {
  if (harness === 'shell') return allow({ host })
  return refuse(
    'usage',
    `refused: a lane on host ${host} runs with the shell harness only (this one would run ${harness})`,
    `pass --harness shell, or start it at home`,
  )
}

/** The start time a lane on a host shows for its harness and runner in its state: their pids are the host's. */
export const HOST_START_PREFIX = 'host:'
export const onHostStart = (host: string) => `${HOST_START_PREFIX}${host}`
export const hostOfStart = (start: string) =>
  start.startsWith(HOST_START_PREFIX) ? start.slice(HOST_START_PREFIX.length) : undefined

/** What appends a message (on stdin) to a lane's inbox on its host, the file its `$SERVICE_INBOX` names there. */
export const remoteInboxScript = (lane: string) =>
  `cat >> "$HOME"/${shellWord(`${REMOTE_DIR}/state/lanes/${lane}/inbox.txt`)}`

/** A word for the remote shell: single-quoted, so nothing in it is expanded. */
export const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** A remote path as the remote shell should read it: `~/x` under the remote home, anything else as it is. */
const remotePath = (p: string) =>
  p === '~' ? '"$HOME"' : p.startsWith('~/') ? `"$HOME"/${shellWord(p.slice(2))}` : shellWord(p)

export interface RemoteWorktree {
  /** The host's lanes root, as hosts.yaml says it (absolute or under `~/`). */
  root: string
  project: string
  /** The lane's directory name, as at home (`<run>-<key>[-i<n>]`, ...). */
  dirName: string
  /** The project's origin, as the home checkout names it. */
  origin: string
  branch?: string
  /** The commit the worktree starts at, resolved at home after its own fetch. */
  start: string
}

/** Where the host keeps its clone of a project (one per project, shared by its lanes there) and the lane's worktree. */
export const remotePlaces = (w: Pick<RemoteWorktree, 'root' | 'project' | 'dirName'>) => ({
  repo: `${w.root}/.repos/${w.project}.git`,
  dir: `${w.root}/${w.project}/${w.dirName}`,
})

/** The script that makes a lane's worktree on a host, on SPEC.md's branch rules: the host's clone of the project
 * fetched from origin (launch rule 5), the commit home resolved checked there, the path checked free, then a
 * worktree on the new branch (a builder) or detached at the commit. It prints `dir=<absolute path>`; a refusal
 * exits 3 (no such commit there) or 4 (the path is taken) with the reason on stderr. */
export function remoteWorktreeScript(w: RemoteWorktree): string {
  const p = remotePlaces(w)
  const checkout = w.branch ? `-b ${shellWord(w.branch)}` : '--detach'
  return [
    'set -e',
    `repo=${remotePath(p.repo)}`,
    `dir=${remotePath(p.dir)}`,
    'mkdir -p "$(dirname "$repo")" "$(dirname "$dir")"',
    '[ -d "$repo" ] || git init -q --bare "$repo"',
    `git -C "$repo" config remote.origin.url ${shellWord(w.origin)}`,
    `git -C "$repo" config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'`,
    'git -C "$repo" fetch -q origin',
    `git -C "$repo" cat-file -e ${shellWord(`${w.start}^{commit}`)} 2>/dev/null || { echo "commit ${w.start} is not ` +
      `on origin as the host fetched it; push it first" >&2; exit 3; }`,
    '[ ! -e "$dir" ] || { echo "$dir is taken on the host" >&2; exit 4; }',
    `git -C "$repo" worktree add -q ${checkout} "$dir" ${shellWord(w.start)}`,
    'cd "$dir" && echo "dir=$(pwd -P)"',
  ].join('\n')
}

/** The script that finds, for `--reuse`, the worktree an earlier lane ran in on a host: still there and still the top
 * of a git worktree. It prints `dir=<absolute path>`; a directory gone or no longer a worktree exits 4 with the
 * reason on stderr. */
export function remoteReuseScript(dir: string): string {
  const gone = (why: string) => `{ echo ${shellWord(`${dir} ${why}; start a new iteration instead`)} >&2; exit 4; }`
  return [
    `cd ${shellWord(dir)} 2>/dev/null || ${gone('is gone (reaped?)')}`,
    `[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] || ${gone('is no longer a git worktree')}`,
    'echo "dir=$(pwd -P)"',
  ].join('\n')
}

/** What the worktree script's answer means (`made`: remoteWorktreeScript's; else remoteReuseScript's): the lane's
 * absolute directory on the host, or why not. */
export function readRemoteWorktree(
  host: string,
  a: { code: number | null; stdout: string; stderr: string; timedOut?: boolean },
  made = true,
): Decision<{ dir: string }> {
  const said = a.stderr.trim().split('\n').at(-1) ?? ''
  const dir = /^dir=(\/.*)$/m.exec(a.stdout)?.[1]
  const what = `${made ? 'make' : 'find'} the lane's worktree`
  if (a.code === 0 && dir) return allow({ dir })
  if (a.timedOut) return refuse('unavailable', `host ${host} did not ${what} in time`)
  if (a.code === 3 || a.code === 4) return refuse('conflict', `refused: on host ${host}: ${said}`)
  return refuse(
    'unavailable',
    `host ${host} could not ${what}: ${said || `exit ${a.code}`}`,
    `svc host show ${host} says what it answers`,
  )
}
