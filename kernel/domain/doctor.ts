/** `svc doctor`: what was found on this machine, and the checks (each problem with its fix) that follow from it. */

export interface ToolFact {
  /** Where the program was found on the kernel's PATH; absent when it was not. */
  path?: string
  /** First line of its version output. */
  version?: string
  /** Why asking for its version failed. */
  error?: string
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
  /** What launches cut short left and could not be taken back (domain/lane-claim.ts planUndo), each with its fix. */
  leftovers?: { detail: string; fix: string }[]
}

export interface DoctorCheck {
  name: string
  ok: boolean
  detail: string
  fix?: string
}

const RESTART = 'then restart the kernel (svc kernel stop; the next svc command starts it)'
const INSTALL: Record<'claude' | 'codex' | 'git' | 'lsof', string> = {
  claude: `install Claude Code (npm install -g @anthropic-ai/claude-code) and log in (claude, then /login), ${RESTART}`,
  codex: `install Codex (npm install -g @openai/codex) and log in (codex login), ${RESTART}`,
  git: `install git (apt-get install git, brew install git), ${RESTART}`,
  lsof: `install lsof (apt-get install lsof, brew install lsof), ${RESTART}`,
}

function toolCheck(name: keyof DoctorFacts['tools'], t: ToolFact, needed: boolean, whyNot: string): DoctorCheck {
  if (t.path && t.error) return { name, ok: false, detail: `${t.path} --version failed: ${t.error}`, fix: `reinstall it: ${INSTALL[name]}` }
  if (t.path) return { name, ok: true, detail: `${t.version ?? 'found'} (${t.path})` }
  if (!needed) return { name, ok: true, detail: `not found on the kernel's PATH; ${whyNot}` }
  return { name, ok: false, detail: "not found on the kernel's PATH", fix: INSTALL[name] }
}

function rootCheck(r: LanesRootFact, configPath: string): DoctorCheck {
  const name = `lanes root of ${r.project}`
  if (r.missingCheckout) return { name: `project ${r.project}`, ok: false, detail: `the checkout ${r.path} does not exist`, fix: `correct ${r.project}.path in ${configPath}` }
  if (r.problem) return { name, ok: false, detail: r.problem, fix: `set ${r.project}.gauntlet.lanes_root in ${configPath} to a directory under your home, outside /tmp, beside the checkout` }
  if (!r.writable) return { name, ok: false, detail: `${r.path} cannot be created or written: ${r.existing} is not writable`, fix: `chmod u+w ${r.existing}, or set ${r.project}.gauntlet.lanes_root in ${configPath}` }
  return { name, ok: true, detail: `${r.path} (${r.existing === r.path ? 'writable' : 'will be created'})` }
}

/** Every check, in the order shown: the kernel, the harness CLIs, git and lsof, the service home, the lanes roots,
 * what interrupted launches left. */
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
  if (f.configError) checks.push({ name: 'projects', ok: false, detail: f.configError, fix: `correct ${f.configPath}` })
  else if (!f.roots.length) checks.push({ name: 'projects', ok: true, detail: `none in ${f.configPath}; lanes need one` })
  for (const r of f.roots) checks.push(rootCheck(r, f.configPath))
  for (const l of f.leftovers ?? []) checks.push({ name: 'interrupted launch', ok: false, detail: l.detail, fix: l.fix })
  return checks
}
