/** The reap of a lane on a host, as home carries it out (SPEC.md 4.1 reap, issue 27). Home asks the host's runner to
 * reap; the runner answers with a fresh snapshot of the worktree to hold first (planRemoteReap), with the worktree
 * removed (only when that snapshot is the one home names as held), or with a refusal. These are home's rules for
 * each answer: nothing is removed there before home holds every byte of it, and a worktree with work not committed
 * goes only with --park, its work parked at home. */

import { ALLOWED, allow, refuse, type Decision } from './refusal.js'
import { leftOutNote, type LeftOut } from './unseen-work.js'

/** What the host answered a reap with. `snapshot`: held at home now under `ref`, with `paths` changed against its
 * HEAD (uncommitted work). `silent`: no answer within the limit. `lost`: the host stopped answering meanwhile (its
 * lanes read host-lost, `detail` the evidence): nothing more will come until it answers again. */
export type HostReapAnswer =
  | { kind: 'snapshot'; commit: string; ref: string; paths: number }
  | { kind: 'reaped'; commit: string; leftOut?: LeftOut }
  | { kind: 'refused'; reason: string }
  | { kind: 'silent'; waitedS: number }
  | { kind: 'lost'; detail?: string }

/** What home does next: park the held snapshot's work at home (then ask the removal), ask the host to remove the
 * worktree naming the held commit, or the reap is done (the worktree is gone; every byte of it held at `held`, but what
 * `note` names: the files the branch's ignore rules hid, gone with it as in a reap here). */
export type HostReapStep =
  | { do: 'park'; commit: string; ref: string; paths: number }
  | { do: 'remove'; held: string; ref: string }
  | { do: 'done'; held: string; note?: string }

/** How many fresh snapshots a reap holds before it gives up: a stopped lane's worktree changes no more, so a second
 * snapshot differing from the first means something still writes there. */
export const HOST_REAP_ROUNDS = 3

/** Before anything is asked of a lane's host: a host that is not answering (its lanes read host-lost, `lost` its
 * evidence) refuses the reap at once. Nothing is stopped, parked or removed, here or there; it may be answering again
 * later, with the lane and its worktree as they were. */
export function hostAnswersForReap(f: {
  host: string
  conv: { id: string; name: string }
  lost?: { detail?: string }
}): Decision {
  if (!f.lost) return ALLOWED
  return refuse(
    'unavailable',
    `refused: host ${f.host} is not answering (${f.lost.detail ?? 'host-lost'}); conv ${f.conv.id} (${f.conv.name}) ` +
      `was not reaped and nothing was removed, here or there`,
    `reap again once it answers; svc host show ${f.host} says what it answers now`,
  )
}

export function hostReapStep(f: {
  host: string
  conv: { id: string; name: string }
  dir: string
  park: boolean
  /** Snapshots held so far in this reap, this answer's included. */
  rounds: number
  answer: HostReapAnswer
}): Decision<HostReapStep> {
  const a = f.answer
  const where = `${f.host}:${f.dir}`
  if (a.kind === 'silent')
    return refuse(
      'unavailable',
      `refused: host ${f.host} did not answer the reap of conv ${f.conv.id} (${f.conv.name}) within ${a.waitedS} s; ` +
        `nothing home does not hold was removed`,
      `svc host show ${f.host} says what it answers; then reap again`,
    )
  if (a.kind === 'lost')
    return refuse(
      'unavailable',
      `refused: host ${f.host} stopped answering during the reap of conv ${f.conv.id} (${f.conv.name}) ` +
        `(${a.detail ?? 'host-lost'}); it is not reaped, and nothing home does not hold was removed`,
      `reap again once it answers; svc host show ${f.host} says what it answers now`,
    )
  if (a.kind === 'refused')
    return refuse('conflict', `refused: host ${f.host}: ${a.reason.replace(/^reap: /, '')}; nothing was removed`)
  if (a.kind === 'reaped') {
    const note = a.leftOut && leftOutNote(a.leftOut)
    return allow({ do: 'done', held: a.commit, ...(note ? { note } : {}) })
  }
  if (f.rounds > HOST_REAP_ROUNDS)
    return refuse(
      'conflict',
      `refused: ${where} kept changing while it was reaped (${HOST_REAP_ROUNDS} snapshots held at home, the last at ` +
        `${a.ref}); nothing was removed`,
      `look for what still writes there, then reap again`,
    )
  if (a.paths > 0 && !f.park)
    return refuse(
      'conflict',
      `refused: ${where} has uncommitted changes (${a.paths} path${a.paths === 1 ? '' : 's'}); commit them, or pass ` +
        `--park to save them to a patch`,
      `nothing was removed; every byte of it is held at home at ${a.ref}`,
    )
  if (a.paths > 0) return allow({ do: 'park', commit: a.commit, ref: a.ref, paths: a.paths })
  return allow({ do: 'remove', held: a.commit, ref: a.ref })
}

/** A `--reuse` respawn on a host works in the worktree of the lane it continues. Once one of the lanes sharing it is
 * reaped, the worktree is gone there (every byte of it held at home by that reap), so the others reap with nothing
 * left to remove, as a lane here whose directory is gone does. The reaped lane that removed it, if any. */
export function sharedWorktreeReapedBy<
  R extends { id: string; cwd: string; reaped?: unknown; lane?: { host?: string } },
>(rec: R, records: readonly R[]): R | undefined {
  const host = rec.lane?.host
  if (!host) return undefined
  return records.find((r) => r.id !== rec.id && r.reaped && r.lane?.host === host && r.cwd === rec.cwd)
}
