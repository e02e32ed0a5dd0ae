import { hostAnswersForReap, hostReapStep, sharedWorktreeReapedBy } from '../domain/host-reap.js'
import {
  detachedKeptWarning,
  harnessStillAlive,
  notYetReaped,
  parkedPatchName,
  parkedRef,
  unpushedWarning,
} from '../domain/reap.js'
import type { ConversationRecord } from '../domain/conversation.js'
import { SvcError } from '../domain/errors.js'
import { refuse } from '../domain/refusal.js'
import { convFiles } from '../io/home.js'
import { join } from '../io/paths.js'
import type { ReapResult } from '../port/port.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'
import { homeRepoOf } from './host-snapshot.js'

type Parked = NonNullable<ReapResult['parked']>

/** `svc lane reap` of a lane on a host (SPEC.md 4.1 reap, issue 27): the lane stopped (step 1), then its host asked
 * to reap it. Each fresh snapshot the host sends is held at home first; a worktree with uncommitted work is refused
 * without --park, and with it the work is parked here (the patch written from the held snapshot and proved to give
 * it back); only then is the host told which held commit it may remove the worktree for, and it removes it only if
 * a fresh snapshot still has that commit's tree and HEAD (planRemoteReap). Then the record and the archive, as at
 * home (the caller archives). A refusal removes nothing that home does not hold and archives nothing. */
export async function reapOnHost(
  ctx: KernelContext,
  rec: ConversationRecord,
  input: { park?: boolean },
  stop: () => Promise<void>,
  limitS: number,
): Promise<{ removed: string | null; parked?: Parked; held?: string; warnings: string[] }> {
  let conv = ctx.store.get(rec.id) ?? rec
  decided(notYetReaped(conv))
  const host = conv.lane!.host!
  let parked: Parked | undefined
  let held: string | undefined
  let removed: string | null = null
  let note: string | undefined
  if (!conv.reaped) {
    decided(hostAnswersForReap({ host, conv, lost: ctx.hostLanes.lost(host, ctx.io.clock.now()) }))
    await stop()
    // Lost while it was stopped: its end cannot come, so it is refused as before anything was asked.
    decided(hostAnswersForReap({ host, conv, lost: ctx.hostLanes.lost(host, ctx.io.clock.now()) }))
    if (ctx.runners.harnessAlive(conv.name)) decided(refuse('conflict', harnessStillAlive(limitS)))
    // A worktree shared with a --reuse respawn went with the reap of either: nothing there to ask the host for.
    if (!sharedWorktreeReapedBy(conv, ctx.store.all())) {
      let ask: string | undefined
      for (let rounds = 0; ;) {
        const answer = await ctx.hostLanes.reap(conv, ask)
        if (answer.kind === 'snapshot') rounds++
        const step = decided(hostReapStep({ host, conv, dir: conv.cwd, park: Boolean(input.park), rounds, answer }))
        if (step.do === 'done') {
          if (step.note) note = step.note
          break
        }
        if (step.do === 'park') parked = await parkHeld(ctx, conv, step)
        ask = step.do === 'park' ? step.commit : step.held
        held = step.ref
        // Every byte of the worktree is held here; the host is not yet asked to remove it.
        ctx.io.fault.point('host-reap-held')
      }
      removed = `${host}:${conv.cwd}`
    }
    conv = ctx.store.get(rec.id) ?? conv
    // The host's answer recorded the removal as it was applied; a lane whose answer came before is recorded here.
    if (!conv.reaped) await ctx.store.update(rec.id, { reaped: { at: ctx.io.clock.now() } })
  }
  const warning = held ? await commitsWarning(ctx, conv, held) : undefined
  const warnings = [note, warning].filter((w): w is string => w !== undefined)
  return { removed, ...(parked ? { parked } : {}), ...(held ? { held } : {}), warnings }
}

/** SPEC.md 4.1 reap step 5 for a lane on a host: the commits of its HEAD (held here) that origin lacks, counted after
 * a fetch, are a warning; the branch stays in the host's clone, and every one of them is held here at `held`. On a
 * detached HEAD, those no branch, tag or remote holds are named with the ref that keeps them. */
async function commitsWarning(ctx: KernelContext, rec: ConversationRecord, held: string): Promise<string | undefined> {
  const repo = await homeRepoOf(ctx, rec)
  // Origin out of reach: counted against what home last fetched of it, which can only count more.
  await ctx.io.git.fetchOrigin(repo).catch(() => undefined)
  const branch = rec.lane?.branch
  const not = branch ? ['--remotes'] : ['--branches', '--tags', '--remotes']
  const r = await ctx.io.git.gitTry(repo, ['rev-list', '--count', `${held}^`, '--not', ...not])
  const n = r.ok ? Number(r.stdout.trim()) : 0
  if (branch) return unpushedWarning(branch, n)
  return n ? detachedKeptWarning(n, held) : undefined
}

/** SPEC.md 4.1 reap step 4 for a lane on a host: its uncommitted work, held at home as a snapshot on top of its HEAD,
 * saved to the parked patch file here and proved to give the snapshot's tree back from that HEAD, and kept reachable
 * from the parked ref. The host's worktree goes after this, with the rest. */
async function parkHeld(
  ctx: KernelContext,
  rec: ConversationRecord,
  step: { commit: string; paths: number },
): Promise<Parked> {
  const repo = await homeRepoOf(ctx, rec)
  const base = `${step.commit}^`
  const tree = (await ctx.io.git.gitTry(repo, ['rev-parse', `${step.commit}^{tree}`])).stdout.trim()
  const name = parkedPatchName(new Date(ctx.io.clock.now()))
  const path = join(convFiles(ctx.home, rec.name).dir, name)
  const made = await ctx.io.writes.publishFileOnce(path, async (tmp) => {
    await ctx.io.git.diffBinaryToFile(repo, base, step.commit, tmp)
    if ((await ctx.io.git.treeFromPatch(repo, tmp, base)) !== tree)
      throw new SvcError(
        'conflict',
        'refused: the parked patch does not reproduce the held snapshot; nothing was removed',
      )
  })
  if (!made) throw new SvcError('conflict', `refused: ${path} already exists; nothing was removed`)
  const ref = parkedRef(rec.name, name)
  const kept = await ctx.io.git.gitTry(repo, ['update-ref', ref, step.commit])
  if (!kept.ok)
    throw new SvcError(
      'conflict',
      `refused: cannot keep the parked work at ${ref}: ${kept.stderr}; nothing was removed`,
    )
  return { patch: path, ref, paths: step.paths }
}
