import { projectEntry, roleConfig } from '../domain/configuration.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { effectivePermissions, type EffectivePermissions, type PermissionConfig } from '../domain/permissions.js'
import type { KernelContext } from './context.js'

/** What a harness about to start may do unasked: the role's policy in projects.yaml (a conversation that is no lane
 * has none: everything asks but svc), mapped by the rulebook to the harness's own mechanism, with the git
 * directories of its working directory. A Codex builder's upstream is recorded now: its sandbox keeps the
 * repository's config read-only, so its own `git push -u` cannot. */
export async function harnessPermissions(
  ctx: KernelContext,
  n: Pick<ConversationRecord, 'harness' | 'cwd' | 'lane' | 'worker' | 'project'> & { play?: boolean },
): Promise<EffectivePermissions | undefined> {
  if (n.harness !== 'claude' && n.harness !== 'codex') return undefined
  // A worker builds on a branch of its own, as a builder does.
  const role = n.lane?.role ?? (n.worker ? 'builder' : undefined)
  const own = n.lane ?? n.worker
  const entry = n.project ? projectEntry(await ctx.config.projects(), n.project) : undefined
  const config: PermissionConfig | undefined = role
    ? entry && roleConfig<{ permissions?: PermissionConfig }>(entry, role)?.permissions
    : { mode: 'ask' }
  const git = await ctx.io.git.gitPlaces(n.cwd).catch(() => undefined)
  const p = effectivePermissions({ role, config, serviced: !n.play, git })
  const roots = p.codex.writableRoots.filter((d) => ctx.io.files.exists(d))
  if (n.harness === 'codex' && p.codex.upstreamBeforehand && own?.branch && own.repo)
    await ctx.io.git.presetUpstream(own.repo, n.cwd, own.branch)
  return { ...p, codex: { ...p.codex, writableRoots: roots } }
}
