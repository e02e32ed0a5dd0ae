import type { Role } from './keys.js'

/** What a lane may do unasked (`gauntlet.roles.<role>.permissions.mode` in projects.yaml):
 * - `ask`: edit nothing and run nothing unasked but `svc`;
 * - `worktree` (the default): edit files in its directory, run git to commit and push its own branch, run `svc`;
 * - `full`: anything (Claude skips its permission checks, Codex runs without a sandbox). */
export const PERMISSION_MODES = ['ask', 'worktree', 'full'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]
export const DEFAULT_PERMISSION_MODE: PermissionMode = 'worktree'

/** `gauntlet.roles.<role>.permissions`. */
export interface PermissionConfig {
  mode?: PermissionMode
  /** More Claude Code permission rules allowed unasked, in its own syntax (`Bash(npm test:*)`). */
  allow?: string[]
  /** More directories the lane may write (both harnesses). */
  writable?: string[]
}

/** Where git writes when a lane commits and pushes its own branch. */
export interface GitPlaces {
  /** The worktree's own git directory (HEAD, index). */
  gitDir: string
  /** The repository's common git directory (objects, refs, logs). */
  commonDir: string
  /** `origin` when it is a directory on this machine (a push writes there). */
  localRemote?: string
}

export interface PermissionFacts {
  role?: Role
  config?: PermissionConfig
  /** The harness gets the service context (svc on PATH, the kernel to reach); a play lane does not. */
  serviced: boolean
  git?: GitPlaces
}

export interface EffectivePermissions {
  mode: PermissionMode
  claude: {
    /** Claude Code's --permission-mode. */
    permissionMode: 'default' | 'acceptEdits' | 'bypassPermissions'
    /** Permission rules allowed unasked; anything else asks (needs-you). */
    allow: string[]
    /** Directories beyond the working directory it may edit (--add-dir). */
    addDirs: string[]
  }
  codex: {
    sandbox: 'workspace-write' | 'danger-full-access'
    /** The sandbox keeps the host's network (svc reaches the kernel on loopback); codex has no loopback-only switch. */
    network: boolean
    /** Writable beyond the working directory (codex keeps a worktree's git directory read-only otherwise). */
    writableRoots: string[]
    /** A push cannot record its upstream (the repository's config stays read-only): the kernel records it first. */
    upstreamBeforehand: boolean
  }
}

/** Git commands that commit and push the lane's own branch, and nothing wider (no other branch, no force). */
export const GIT_RULES = [
  'Bash(git status:*)',
  'Bash(git diff:*)',
  'Bash(git log:*)',
  'Bash(git show:*)',
  'Bash(git add:*)',
  'Bash(git commit:*)',
  'Bash(git push -u origin HEAD)',
  'Bash(git push origin HEAD)',
  'Bash(git push)',
]
export const SVC_RULE = 'Bash(svc:*)'

/** What git writes for a commit and a push of the lane's branch: the worktree's git directory, the common object
 * store, refs and reflogs, and a local origin. Never the repository's config or hooks (code run outside the lane). */
export function gitWritableRoots(git: GitPlaces): string[] {
  const common = git.commonDir.replace(/\/+$/, '')
  return [
    git.gitDir,
    `${common}/objects`,
    `${common}/refs`,
    `${common}/logs`,
    ...(git.localRemote ? [git.localRemote] : []),
  ]
}

const unique = (xs: string[]) => [...new Set(xs)]

/** The permission policy of a lane (or a conversation, role undefined) mapped to each harness's own mechanism. */
export function effectivePermissions(f: PermissionFacts): EffectivePermissions {
  const mode = f.config?.mode ?? DEFAULT_PERMISSION_MODE
  const writable = f.config?.writable ?? []
  const svc = f.serviced ? [SVC_RULE] : []
  if (mode === 'full')
    return {
      mode,
      claude: { permissionMode: 'bypassPermissions', allow: [], addDirs: writable },
      codex: { sandbox: 'danger-full-access', network: true, writableRoots: [], upstreamBeforehand: false },
    }
  const git = mode === 'worktree' && f.git && f.role !== 'play' ? f.git : undefined
  return {
    mode,
    claude: {
      permissionMode: mode === 'worktree' ? 'acceptEdits' : 'default',
      allow: unique([
        ...(mode === 'worktree' && f.role !== 'play' ? GIT_RULES : []),
        ...svc,
        ...(f.config?.allow ?? []),
      ]),
      addDirs: writable,
    },
    codex: {
      sandbox: 'workspace-write',
      network: f.serviced,
      writableRoots: unique([...(git ? gitWritableRoots(git) : []), ...writable]),
      upstreamBeforehand: Boolean(git) && f.role === 'builder',
    },
  }
}

const toml = (s: string) => JSON.stringify(s)

/** Claude Code's flags for the policy. The rules go in as settings (JSON), so a rule with spaces is one rule. */
export function claudePermissionArgs(p: EffectivePermissions['claude']): string[] {
  // `default` leaves the mode to the user's own settings (their defaultMode).
  const args = p.permissionMode === 'default' ? [] : ['--permission-mode', p.permissionMode]
  if (p.allow.length) args.push('--settings', JSON.stringify({ permissions: { allow: p.allow } }))
  for (const d of p.addDirs) args.push('--add-dir', d)
  return args
}

/** What the sandbox refuses is asked of a person (codex's approval request, the lane's needs-you), never failed
 * silently: codex's granular approval policy with sandbox approvals on, the rest of its asking off. */
export const CODEX_APPROVAL_POLICY =
  'approval_policy={granular={sandbox_approval=true,rules=true,skill_approval=false,' +
  'request_permissions=false,mcp_elicitations=false}}'

/** Codex's settings (`-c key=value`) for the policy; without one, its workspace sandbox. Its shell is never a login
 * shell: a system profile that resets PATH would drop `svc` (and codex's own helpers). */
export function codexPermissionArgs(p: EffectivePermissions['codex'] | undefined): string[] {
  const sandbox = p?.sandbox ?? 'workspace-write'
  const args = ['-c', `sandbox_mode="${sandbox}"`, '-c', 'allow_login_shell=false']
  if (sandbox !== 'workspace-write') return [...args, '-c', 'approval_policy="never"']
  args.push('-c', CODEX_APPROVAL_POLICY)
  if (p?.network) args.push('-c', 'sandbox_workspace_write.network_access=true')
  if (p?.writableRoots.length)
    args.push('-c', `sandbox_workspace_write.writable_roots=[${p.writableRoots.map(toml).join(',')}]`)
  return args
}

/** Git places as `svc doctor` names them, for a policy shown per role rather than per lane. */
export const GIT_PLACES_NAMED: GitPlaces = { gitDir: '<worktree git dir>', commonDir: '<git common dir>' }

/** One line per harness for `svc doctor`: what a lane of the role may do unasked. */
export function describePermissions(p: EffectivePermissions): { claude: string; codex: string } {
  const c = p.claude
  const claude = [
    `--permission-mode ${c.permissionMode}`,
    c.permissionMode === 'bypassPermissions' ? 'nothing asks' : `unasked: ${c.allow.join(', ') || 'nothing more'}`,
    ...(c.addDirs.length ? [`also edits ${c.addDirs.join(', ')}`] : []),
  ].join('; ')
  const x = p.codex
  const codex =
    x.sandbox === 'danger-full-access'
      ? 'sandbox danger-full-access: no sandbox'
      : [
          'sandbox workspace-write',
          x.network ? 'network on (svc reaches the kernel)' : 'no network',
          `writes its directory${x.writableRoots.length ? `, ${x.writableRoots.join(', ')}` : ''}`,
          'anything else asks',
        ].join('; ')
  return { claude, codex }
}
