import { SvcError } from '../domain/errors.js'
import { heldSnapshotRef, snapshotRef, type HostEvent } from '../domain/host-stream.js'
import { gitOverSsh, type HostEntry } from '../domain/hosts.js'
import type { KernelContext } from './context.js'
import { places } from './hosts.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { namedProject } from './project.js'

/** The project's repository here, where the snapshots of its lanes on hosts are held. */
export async function homeRepoOf(ctx: KernelContext, rec: ConversationRecord): Promise<string> {
  const project = await namedProject(ctx, rec.project, undefined, 'a lane on a host')
  return ctx.io.files.realpath(project.entry.path)
}

/** A snapshot named in an event: a report's (it may lack one) or one a reap asked to be held. */
type Snapshot = Pick<Extract<HostEvent, { kind: 'report' | 'snapshot' }>, 'lane' | 'id' | 'commit'>

/** Hold at home the bytes a remote lane's report (or reap) is about: the snapshot commit it carries, fetched from
 * the lane's worktree on the host into the project's repository at home, on a hidden ref per host, lane and
 * snapshot. Resolves with that ref once the repository holds the commit; throws while it does not, so the link does
 * not acknowledge the event and the runner sends it again (after a reconnect) until its bytes are home. */
export async function holdSnapshot(
  ctx: Pick<KernelContext, 'home' | 'io'>,
  f: { host: string; entry: HostEntry; dir: string; repo: string; snapshot: Snapshot },
): Promise<string> {
  const report = f.snapshot
  if (!report.commit)
    throw new SvcError('conflict', `${report.lane}'s report ${report.id} carries no snapshot of its worktree`)
  const held = heldSnapshotRef(f.host, report.lane, report.id)
  if ((await ctx.io.git.revParse(f.repo, held)) !== report.commit)
    await ctx.io.hosts.fetchFromHost(
      f.repo,
      gitOverSsh(f.host, f.entry, places(ctx), f.dir),
      snapshotRef(report.lane, report.id),
      held,
    )
  const got = await ctx.io.git.revParse(f.repo, held)
  if (got !== report.commit)
    throw new SvcError(
      'conflict',
      `host ${f.host} holds ${got ?? 'nothing'} for ${report.lane}'s snapshot ${report.id}, not ${report.commit}`,
    )
  return held
}

/** How many paths a held snapshot changes against the lane's HEAD (its parent): the work not committed there. */
export async function changedPaths(ctx: Pick<KernelContext, 'io'>, repo: string, commit: string): Promise<number> {
  const r = await ctx.io.git.gitTry(repo, ['diff', '--name-only', '-z', '--no-renames', `${commit}^`, commit])
  if (!r.ok) throw new SvcError('conflict', `cannot read the held snapshot ${commit} in ${repo}: ${r.stderr}`)
  return r.stdout.split('\0').filter(Boolean).length
}
