import { roleConfig } from '../domain/configuration.js'
import {
  doctorChecks,
  type DoctorCheck,
  type DoctorFacts,
  type LanesRootFact,
  type RolePolicy,
} from '../domain/doctor.js'
import { ROLES } from '../domain/keys.js'
import { GIT_PLACES_NAMED, describePermissions, effectivePermissions } from '../domain/permissions.js'
import { SvcError } from '../domain/errors.js'
import type { Projects } from '../io/config.js'
import type { Files } from '../io/adapters.js'
import { dirname } from '../io/paths.js'
import { homePaths } from '../io/home.js'
import type { KernelContext } from './context.js'
import { lanesRootOf } from './project.js'
import { launchLeftovers } from './launch-intents.js'
import { probeHosts } from './hosts.js'

/** The nearest directory that exists at or above `path`. */
function existingAncestor(files: Files, path: string): string {
  let p = path
  while (!files.exists(p) && dirname(p) !== p) p = dirname(p)
  return p
}

function rootFacts(ctx: KernelContext, projects: Projects): LanesRootFact[] {
  const files = ctx.io.files
  return Object.entries(projects).map(([project, entry]) => {
    if (!files.exists(entry.path))
      return { project, missingCheckout: true, path: entry.path, existing: entry.path, writable: false }
    const { lanesRoot, problem } = lanesRootOf(files, entry, files.realpath(entry.path))
    const existing = existingAncestor(files, lanesRoot)
    return {
      project,
      path: lanesRoot,
      ...(problem ? { problem } : {}),
      existing,
      writable: ctx.io.tools.writable(existing),
    }
  })
}

/** Each project's roles as a lane of them is launched: its harness (the role's, else claude) and its permissions. */
function rolePolicies(projects: Projects): RolePolicy[] {
  return Object.entries(projects).flatMap(([project, entry]) =>
    ROLES.map((role) => {
      const config = roleConfig(entry, role)
      const harness = config?.harness ?? 'claude'
      const p = effectivePermissions({
        role,
        config: config?.permissions,
        serviced: role !== 'play',
        git: GIT_PLACES_NAMED,
      })
      const described = describePermissions(p)
      const detail = harness === 'claude' || harness === 'codex' ? described[harness] : undefined
      return { project, role, harness, mode: p.mode, ...(detail ? { detail } : {}) }
    }),
  )
}

/** `svc doctor`, seen from the kernel: its PATH is the one every harness is started with. */
export async function doctor(
  ctx: KernelContext,
  kernel: DoctorFacts['kernel'],
): Promise<{ checks: DoctorCheck[]; problems: number }> {
  let projects: Projects = {}
  let configError: string | undefined
  try {
    projects = await ctx.config.projects()
  } catch (e) {
    configError = e instanceof SvcError ? e.message : `${ctx.config.path}: ${(e as Error).message}`
  }
  let hostsError: DoctorFacts['hostsError']
  const hosts = probeHosts(ctx).catch((e) => {
    hostsError = { path: homePaths(ctx.home).hosts, problem: (e as Error).message }
    return []
  })
  const [claude, codex, git, lsof, gh, lanePidNamespace] = await Promise.all([
    ctx.io.tools.harnessFact('claude'),
    ctx.io.tools.harnessFact('codex'),
    ctx.io.tools.toolFact('git', ['--version']),
    ctx.io.tools.toolFact('lsof', undefined),
    ctx.io.tools
      .toolFact('gh', ['--version'])
      .then(async (t) =>
        t.path && !t.error ? { ...t, auth: await ctx.io.tools.ghAuthStatus({ timeoutMs: 10_000 }) } : t,
      ),
    ctx.io.tools.pidNamespaceProbe(),
  ])
  const configured = Object.values(projects).flatMap((p) =>
    Object.values(p.gauntlet?.roles ?? {}).map((r) => r.harness),
  )
  const checks = doctorChecks({
    kernel,
    tools: { claude, codex, git, lsof },
    harnessesInUse: ['claude', ...configured.filter((h): h is NonNullable<typeof h> => Boolean(h))],
    hasProc: ctx.io.files.exists('/proc/self/cwd'),
    lanePidNamespace,
    home: { path: ctx.home, writable: ctx.io.tools.writable(ctx.home) },
    configPath: ctx.config.path,
    configError,
    roots: rootFacts(ctx, projects),
    policies: rolePolicies(projects),
    gh,
    badStoreFiles: [...ctx.store.badFiles].map(([path, problem]) => ({ path, problem })),
    leftovers: await launchLeftovers(ctx),
    hosts: await hosts,
    ...(hostsError ? { hostsError } : {}),
    notify: {
      path: homePaths(ctx.home).notify,
      ...(await ctx.io.notify.configFile(homePaths(ctx.home).notify).read()),
    },
  })
  return { checks, problems: checks.filter((c) => !c.ok).length }
}
