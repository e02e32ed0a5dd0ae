import { existsSync, rmSync } from 'node:fs'
import { join, resolve as resolvePath } from 'node:path'
import { planRemoteReap, type FromKernel } from '../../domain/host-stream.js'
import { writeFileAtomicSync } from '../../io/atomic-file.js'
import { leftOutOf } from '../../domain/unseen-work.js'
import { git, gitTry, worktreeGitDir } from '../../io/git.js'
import { ignoredAtLaunch } from '../../io/git-unseen.js'
import { processesInside } from '../../io/procs.js'
import { laneAlive, lanePaths, readText } from './files.js'
import type { Journal } from './journal.js'
import type { InLane } from './lane-order.js'
import { snapshotLane } from './snapshot.js'

/** A reap: the worktree removed only when a fresh snapshot of it is the one the kernel holds (planRemoteReap). */
export function reapLane(
  {
    dir,
    emit,
    inLane,
    log,
    reaping,
  }: { dir: string; emit: Journal['emit']; inLane: InLane; log: (line: string) => void; reaping: Reaping },
  m: Extract<FromKernel, { t: 'reap' }>,
) {
  const lp = lanePaths(dir, m.lane)
  // From the moment it is asked: a --reuse start in that worktree that comes after it is refused until it is done.
  const cwd = readText(lp.cwd)
  const done = cwd ? reaping.hold(cwd) : () => {}
  inLane(m.lane, async () => {
    try {
      // Reaped already: the event is in the journal and goes home after a reconnect like any other.
      if (existsSync(lp.reaped)) return log(`${m.lane}: reap sent again; reaped already`)
      if (!existsSync(lp.dir))
        return emit(m.lane, { kind: 'refused', reason: `reap: no lane ${m.lane} runs on this host` })
      await reapNow(lp, m, emit)
    } catch (e) {
      // Said home, so the reap there does not wait in vain; what home holds is all that was removed, if anything.
      emit(m.lane, { kind: 'refused', reason: `reap: ${(e as Error).message}` })
    } finally {
      done()
    }
  })
}

/** The reap of a lane the runner knows, once it is its turn: planRemoteReap's facts gathered, its plan carried out. */
async function reapNow(
  lp: ReturnType<typeof lanePaths>,
  m: Extract<FromKernel, { t: 'reap' }>,
  emit: Journal['emit'],
): Promise<void> {
  const cwd = readText(lp.cwd) ?? ''
  const alive = laneAlive(lp) && readText(lp.exit) === undefined
  const gitWorktree = !!cwd && !!worktreeGitDir(cwd)
  const processes = !alive && cwd ? await processesInside(cwd) : []
  let now: { id: string; commit: string; tree: string; parent: string } | undefined
  let nested: string[] = []
  let held: { tree: string; parent: string } | undefined
  if (!alive && gitWorktree) {
    const id = `reap-${Date.now()}`
    const commit = await snapshotLane(m.lane, cwd, Number(readText(lp.started)) || 0, id)
    if (commit) {
      const [tree, parent] = (await git(cwd, ['rev-parse', `${commit}^{tree}`, `${commit}^`])).trim().split('\n')
      now = { id, commit, tree, parent }
      nested = await checkedOutRepos(cwd, commit)
    }
    const h = m.held && (await gitTry(cwd, ['rev-parse', `${m.held}^{tree}`, `${m.held}^`]))
    if (h && h.ok) {
      const [t, p] = h.stdout.trim().split('\n')
      held = { tree: t, parent: p }
    }
  }
  const plan = planRemoteReap({ alive, gitWorktree, dir: cwd, processes, now, nested, held })
  if (plan.do === 'refuse') return emit(m.lane, { kind: 'refused', reason: `reap: ${plan.reason}` })
  if (plan.do === 'hold') return emit(m.lane, { kind: 'snapshot', id: now!.id, commit: now!.commit })
  // Read before the removal, which takes them too: named home in a note, as a reap there names them.
  const leftOut = leftOutOf(await ignoredAtLaunch(cwd, Number(readText(lp.started)) || 0))
  await removeWorktree(m.lane, cwd)
  writeFileAtomicSync(lp.reaped, m.held!)
  emit(m.lane, { kind: 'reaped', commit: m.held!, ...(leftOut.count ? { leftOut } : {}) })
}

/** The repositories checked out inside the worktree: the snapshot's gitlinks whose directory holds a repository. */
async function checkedOutRepos(cwd: string, commit: string): Promise<string[]> {
  const entries = (await git(cwd, ['ls-tree', '-r', '-z', '--full-tree', commit])).split('\0')
  const links = entries.filter((e) => e.startsWith('160000 ')).map((e) => e.slice(e.indexOf('\t') + 1))
  return links.filter((path) => existsSync(join(cwd, path, '.git')))
}

/** Remove a lane's worktree and its snapshot refs (their commits are held at home): a linked worktree through git,
 * so its repository forgets it; a repository of its own as a directory. */
async function removeWorktree(lane: string, cwd: string) {
  const [gitDir, common] = (await git(cwd, ['rev-parse', '--absolute-git-dir', '--git-common-dir'])).trim().split('\n')
  const commonDir = resolvePath(cwd, common)
  const refs = (await git(cwd, ['for-each-ref', '--format=%(refname)', `refs/svc/snapshots/${lane}/`])).trim()
  if (refs)
    await git(
      cwd,
      ['update-ref', '--stdin'],
      {},
      refs
        .split('\n')
        .map((r) => `delete ${r}\n`)
        .join(''),
    )
  if (resolvePath(gitDir) !== commonDir) await git(commonDir, ['worktree', 'remove', '--force', cwd])
  else rmSync(cwd, { recursive: true, force: true })
}

/** The worktrees reaps are working on (more than one lane may share one), each held from when its reap is asked until
 * it is done. */
export function reapingSet() {
  const held = new Map<string, number>()
  return {
    hold(dir: string): () => void {
      held.set(dir, (held.get(dir) ?? 0) + 1)
      let once = false
      return () => {
        if (once) return
        once = true
        const n = (held.get(dir) ?? 1) - 1
        if (n) held.set(dir, n)
        else held.delete(dir)
      }
    },
    has: (dir: string) => held.has(dir),
  }
}

export type Reaping = ReturnType<typeof reapingSet>
