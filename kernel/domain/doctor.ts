/** `svc doctor`: what was found on this machine, and the checks (each problem with its fix) that follow from it. */

import { describeNotifyConfig, type NotifyConfig } from './notify-config.js'
import { MIN_NODE_MAJOR, hostFactsText, nodeProblem, runnerText, type HostView } from './hosts.js'

export interface ToolFact {
  /** Where the program was found on the kernel's PATH; absent when it was not. */
  path?: string
  /** First line of its version output. */
  version?: string
  /** Why asking for its version failed. */
  error?: string
  /** What the CLI's own login status command said (harness CLIs only). */
  login?: LoginFact
}

/** Logged in or not, in the CLI's own words; `unknown` where it has no status command or its answer is unclear. */
export interface LoginFact {
  state: 'yes' | 'no' | 'unknown'
  detail?: string
}

/** The CLIs' own login status commands: `claude auth status` (JSON with loggedIn, authMethod; exit 1 when logged
 * out) and `codex login status` ("Logged in using …", or "Not logged in" and exit 1). */
export const LOGIN_STATUS_ARGS: Record<'claude' | 'codex', string[]> = {
  claude: ['auth', 'status'],
  codex: ['login', 'status'],
}

const firstLine = (s: string) =>
  s
    .split('\n')
    .find((l) => l.trim())
    ?.trim()

/** Read a login status command's answer. */
export function loginFact(
  tool: 'claude' | 'codex',
  r: { code: number | null; stdout: string; stderr: string },
): LoginFact {
  if (tool === 'claude') {
    try {
      const status = JSON.parse(r.stdout) as { loggedIn?: unknown; authMethod?: unknown }
      if (typeof status.loggedIn === 'boolean')
        return status.loggedIn ? { state: 'yes', detail: String(status.authMethod ?? 'logged in') } : { state: 'no' }
    } catch {}
    return { state: 'unknown', detail: firstLine(r.stderr) ?? firstLine(r.stdout) ?? `exit code ${r.code}` }
  }
  // Codex may print warnings first (a CODEX_HOME it cannot use): the status is the line that says it.
  const lines = `${r.stdout}\n${r.stderr}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const yes = lines.find((l) => /^logged in\b/i.test(l))
  if (r.code === 0 && yes) return { state: 'yes', detail: yes.replace(/^logged in (using )?/i, '') }
  if (lines.some((l) => /^not logged in\b/i.test(l))) return { state: 'no' }
  return { state: 'unknown', detail: lines.at(-1) ?? `exit code ${r.code}` }
}

export interface LanesRootFact {
  project: string
  /** The project's checkout is not there (path: the configured checkout). */
  missingCheckout?: boolean
  path: string
  /** A rule of SPEC.md section 8 the root breaks. */
  problem?: string
  /** The root, or the nearest existing directory it would be created in. */
  existing: string
  writable: boolean
}

export interface DoctorFacts {
  kernel: { version: string; pid: number; port: number }
  tools: { claude: ToolFact; codex: ToolFact; git: ToolFact; lsof: ToolFact }
  /** Harnesses a launch may pick: claude (the default) and those named in the gauntlet configuration. */
  harnessesInUse: string[]
  /** /proc lists each process's working directory, so lsof is not needed. */
  hasProc: boolean
  home: { path: string; writable: boolean }
  configPath: string
  configError?: string
  roots: LanesRootFact[]
  /** gh, which only workers on gh: issues need: where, its version, and whether it is logged in. */
  gh?: ToolFact & { auth?: { loggedIn: boolean; detail: string } }
  /** Store files the kernel refused (path, what is wrong): their conversations are left out, the others work. */
  badStoreFiles: { path: string; problem: string }[]
  /** What launches cut short left and could not be taken back (domain/lane-claim.ts planUndo), each with its fix. */
  leftovers?: { detail: string; fix: string }[]
  /** notify.yaml: where notifications go, or what is wrong with it; neither when there is none. */
  notify?: { path: string; config?: NotifyConfig; problem?: string }
  /** Each host of hosts.yaml as a probe over ssh found it; or why hosts.yaml could not be read. */
  hosts?: HostView[]
  hostsError?: { path: string; problem: string }
  /** Each project's roles: the harness a lane of the role runs and what it may do unasked (domain/permissions.ts). */
  policies?: RolePolicy[]
  /** Whether each lane's runner starts a PID namespace of its own here (io/subreaper), or why not; whether in a user
   * namespace of its own (the kernel is not root); and, if its harness cannot get a /proc of that namespace, why. */
  lanePidNamespace?: { ok: boolean; problem?: string; userNamespace?: boolean; procProblem?: string }
}

export interface RolePolicy {
  project: string
  role: string
  harness: string
  mode: string
  /** The harness's own mechanism, described (describePermissions); absent for a harness with no permission checks. */
  detail?: string
}

/** One line per project and role: the policy a lane of it gets, in its harness's own terms. */
function policyCheck(p: RolePolicy): DoctorCheck {
  return {
    name: `permissions ${p.project}/${p.role}`,
    ok: true,
    detail:
      `${p.mode} on ${p.harness}: ` +
      `${p.detail ?? 'the shell harness runs its brief as given (no permission checks)'}`,
  }
}

export interface DoctorCheck {
  name: string
  ok: boolean
  detail: string
  fix?: string
  /** Not a problem, but worth knowing (with its fix): what only some uses need. */
  note?: boolean
}

const RESTART = 'then restart the kernel (svc kernel stop; the next svc command starts it)'
const LOGIN: Record<'claude' | 'codex', string> = {
  claude: 'log in: run claude, then /login (or give the kernel ANTHROPIC_API_KEY and restart it: svc kernel stop)',
  codex: 'log in: codex login (or printenv OPENAI_API_KEY | codex login --with-api-key)',
}
const INSTALL: Record<'claude' | 'codex' | 'git' | 'lsof', string> = {
  claude: `install Claude Code (npm install -g @anthropic-ai/claude-code) and log in (claude, then /login), ${RESTART}`,
  codex: `install Codex (npm install -g @openai/codex) and log in (codex login), ${RESTART}`,
  git: `install git (apt-get install git, brew install git), ${RESTART}`,
  lsof: `install lsof (apt-get install lsof, brew install lsof), ${RESTART}`,
}

function toolCheck(name: keyof DoctorFacts['tools'], t: ToolFact, needed: boolean, whyNot: string): DoctorCheck {
  if (t.path && t.error)
    return { name, ok: false, detail: `${t.path} --version failed: ${t.error}`, fix: `reinstall it: ${INSTALL[name]}` }
  if (t.path) return loginCheck(name, t, `${t.version ?? 'found'} (${t.path})`, needed, whyNot)
  if (!needed) return { name, ok: true, detail: `not found on the kernel's PATH; ${whyNot}` }
  return { name, ok: false, detail: "not found on the kernel's PATH", fix: INSTALL[name] }
}

/** A harness CLI found: logged in or not, as its status command says; not logged in is a problem when a launch may
 * use it. */
function loginCheck(
  name: keyof DoctorFacts['tools'],
  t: ToolFact,
  found: string,
  needed: boolean,
  whyNot: string,
): DoctorCheck {
  if (!t.login || (name !== 'claude' && name !== 'codex')) return { name, ok: true, detail: found }
  const { state, detail } = t.login
  if (state === 'yes') return { name, ok: true, detail: `${found}; logged in${detail ? ` (${detail})` : ''}` }
  if (state === 'unknown')
    return { name, ok: true, detail: `${found}; logged in: unknown${detail ? ` (${detail})` : ''}` }
  if (!needed) return { name, ok: true, detail: `${found}; not logged in; ${whyNot}` }
  return { name, ok: false, detail: `${found}; not logged in`, fix: LOGIN[name] }
}

function rootCheck(r: LanesRootFact, configPath: string): DoctorCheck {
  const name = `lanes root of ${r.project}`
  if (r.missingCheckout)
    return {
      name: `project ${r.project}`,
      ok: false,
      detail: `the checkout ${r.path} does not exist`,
      fix: `correct ${r.project}.path in ${configPath}`,
    }
  if (r.problem)
    return {
      name,
      ok: false,
      detail: r.problem,
      fix:
        `set ${r.project}.gauntlet.lanes_root in ${configPath} to a directory under your home, outside /tmp, ` +
        `beside the checkout`,
    }
  if (!r.writable)
    return {
      name,
      ok: false,
      detail: `${r.path} cannot be created or written: ${r.existing} is not writable`,
      fix: `chmod u+w ${r.existing}, or set ${r.project}.gauntlet.lanes_root in ${configPath}`,
    }
  return { name, ok: true, detail: `${r.path} (${r.existing === r.path ? 'writable' : 'will be created'})` }
}

/** What to do when gh is missing, and when it is not logged in (the refusals of the gh tracker say the same). */
export const GH_INSTALL = 'install gh (https://cli.github.com), then log in with gh auth login'
export const GH_LOGIN = 'gh auth login'

/** gh is needed only by workers on gh: issues, so its absence or a missing login is a note, not a problem. */
function ghCheck(gh: NonNullable<DoctorFacts['gh']>): DoctorCheck {
  if (gh.path && gh.error)
    return {
      name: 'gh',
      ok: false,
      detail: `${gh.path} --version failed: ${gh.error}`,
      fix: `reinstall it: ${GH_INSTALL}`,
    }
  if (!gh.path)
    return {
      name: 'gh',
      ok: true,
      note: true,
      detail: "not found on the kernel's PATH; only workers on gh: issues need it",
      fix: GH_INSTALL,
    }
  const found = `${gh.version ?? 'found'} (${gh.path})`
  if (gh.auth?.loggedIn) return { name: 'gh', ok: true, detail: `${found}; ${gh.auth.detail}` }
  return {
    name: 'gh',
    ok: true,
    note: true,
    detail: `${found}; not logged in${gh.auth ? `: ${gh.auth.detail}` : ''}`,
    fix: GH_LOGIN,
  }
}

/** A host answers with git (a lane's worktree is made there) and a node the runner runs on; and says which runner
 * it has: this kernel's, installed or not yet, or another version running (a note: the kernel replaces it when it
 * attaches). */
function hostCheck(h: HostView): DoctorCheck {
  const name = `host ${h.name}`
  if (h.problem)
    return { name, ok: false, detail: h.problem.message, ...(h.problem.hint ? { fix: h.problem.hint } : {}) }
  const facts = h.facts!
  const runner = facts.runner
  const detail = `${h.ssh}: ${hostFactsText(facts)}${runner ? `; ${runnerText(runner)}` : ''}`
  if (!facts.git) return { name, ok: false, detail, fix: `install git on ${h.name} (apt-get install git)` }
  if (nodeProblem(h.name, facts.node))
    return { name, ok: false, detail, fix: `install Node ${MIN_NODE_MAJOR} or newer on ${h.name}` }
  if (runner?.running && runner.running.version !== runner.version) return { name, ok: true, note: true, detail }
  return { name, ok: true, detail }
}

/** Without a PID namespace of its own, a lane process that leaves its group and session and then kills its runner is
 * handed to init and calls as the person: worth knowing, not a fault of the setup. */
function pidNamespaceCheck(n: NonNullable<DoctorFacts['lanePidNamespace']>): DoctorCheck {
  const name = 'lane isolation'
  const where = n.userNamespace ? ' (inside a user namespace of its own: the kernel does not run as root)' : ''
  if (n.ok && n.procProblem)
    return {
      name,
      ok: true,
      note: true,
      detail:
        `each lane runs in a PID namespace of its own${where}: none of its processes outlives its runner; but its ` +
        `harness sees the machine's /proc (${n.procProblem}), where a sandbox inside the lane may hang`,
    }
  if (n.ok)
    return {
      name,
      ok: true,
      detail: `each lane runs in a PID namespace of its own${where}: none of its processes outlives its runner`,
    }
  return {
    name,
    ok: true,
    note: true,
    detail:
      `lanes run without a PID namespace of their own (${n.problem ?? 'not available'}): a lane process that ` +
      'leaves its process group and session and then kills its runner counts as the person',
    fix: n.userNamespace
      ? 'turn on user namespaces for users (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone), ' +
        'or run the kernel as root, to give each lane a PID namespace of its own'
      : 'run the kernel as root to give each lane a PID namespace of its own',
  }
}

/** Every check, in the order shown: the kernel, the harness CLIs, git and lsof, the service home, the lanes roots,
 * notifications, gh, refused store files, what interrupted launches left. */
export function doctorChecks(f: DoctorFacts): DoctorCheck[] {
  const inUse = (h: string) => f.harnessesInUse.includes(h)
  const checks: DoctorCheck[] = [
    { name: 'kernel', ok: true, detail: `${f.kernel.version} answering (pid ${f.kernel.pid}, port ${f.kernel.port})` },
    toolCheck('claude', f.tools.claude, inUse('claude'), 'no launch uses it'),
    toolCheck('codex', f.tools.codex, inUse('codex'), 'needed only for --harness codex'),
    toolCheck('git', f.tools.git, true, ''),
    toolCheck('lsof', f.tools.lsof, !f.hasProc, 'not needed here: /proc gives each process its directory'),
    f.home.writable
      ? { name: 'service home', ok: true, detail: `${f.home.path} (writable)` }
      : { name: 'service home', ok: false, detail: `${f.home.path} is not writable`, fix: `chmod u+w ${f.home.path}` },
  ]
  if (f.lanePidNamespace) checks.push(pidNamespaceCheck(f.lanePidNamespace))
  if (f.configError) checks.push({ name: 'projects', ok: false, detail: f.configError, fix: `correct ${f.configPath}` })
  else if (!f.roots.length)
    checks.push({ name: 'projects', ok: true, detail: `none in ${f.configPath}; lanes need one` })
  for (const r of f.roots) checks.push(rootCheck(r, f.configPath))
  if (f.notify?.problem)
    checks.push({
      name: 'notify',
      ok: false,
      detail: `${f.notify.problem}; notifications are off`,
      fix: `correct ${f.notify.path} (README, Notifications)`,
    })
  else if (f.notify?.config) checks.push({ name: 'notify', ok: true, detail: describeNotifyConfig(f.notify.config) })
  if (f.hostsError)
    checks.push({ name: 'hosts', ok: false, detail: f.hostsError.problem, fix: `correct ${f.hostsError.path}` })
  for (const h of f.hosts ?? []) checks.push(hostCheck(h))
  if (f.gh) checks.push(ghCheck(f.gh))
  for (const b of f.badStoreFiles)
    checks.push({
      name: 'store file',
      ok: false,
      detail: `${b.path} ${b.problem}; its conversation is left out`,
      fix: `repair ${b.path} or move it away, then restart the kernel (svc kernel stop)`,
    })
  for (const l of f.leftovers ?? [])
    checks.push({ name: 'interrupted launch', ok: false, detail: l.detail, fix: l.fix })
  for (const p of f.policies ?? []) checks.push(policyCheck(p))
  return checks
}
