import { existsSync } from 'node:fs'
import { sameGitFacts, type GitFacts } from '../../domain/git-facts.js'
import { NO_GIT_STAMP, statusFacts, worktreeGitDir, worktreeStamp } from '../../io/git.js'
import { Limiter } from '../../queue/serial.js'
import type { Journal } from './journal.js'
import type { InLane } from './lane-order.js'

/** A live lane's worktree is read again at least this often, for what its stamp cannot show (an edit below the top
 * directory, a push); one such read per look at the lanes, the lane read longest ago first, so a host with hundreds
 * of lanes runs a few reads a second, not hundreds. */
const REFRESH_MS = Number(process.env.SERVICE_HOST_GIT_REFRESH_MS) || 2000

interface Seen {
  dir: string
  /** Where its HEAD and index are (found once; looked for again while there is none). */
  gitDir?: string
  /** HEAD, the index and the top directory when last read. */
  stamp?: string
  readAt: number
  /** What was last sent home. */
  sent?: GitFacts
  reading: boolean
  /** Asked for again while a read ran: read once more after it. */
  again?: boolean
}

/** The git facts of a host's lanes (issue 27), read by the code that reads a worktree at home (io/git.ts) and sent
 * home as the lane's events when they say something new, so a remote lane's AHEAD and DIRTY are as true as a local
 * one's. A lane is read when it starts, files a report or ends, when the stamp of its worktree moves, and now and
 * then while it lives. */
export function laneGit({ emit, inLane, log }: { emit: Journal['emit']; inLane: InLane; log: (line: string) => void }) {
  const seen = new Map<string, Seen>()
  const stampOf = (s: Seen) => worktreeStamp(s.dir, (s.gitDir ??= worktreeGitDir(s.dir)))
  const reads = new Limiter(2)

  const read = (lane: string, dir: string) => {
    const s = seen.get(lane) ?? { dir, readAt: 0, reading: false }
    seen.set(lane, s)
    if (s.reading) {
      s.again = true
      return
    }
    // Stamped before the read: a change during it shows as a new stamp at the next look.
    s.stamp = stampOf(s)
    s.readAt = Date.now()
    // Not a git worktree (a play lane's directory): nothing to read until it becomes one.
    if (s.stamp === NO_GIT_STAMP) return
    s.reading = true
    // In the lane's order: facts read after its report or its end go home after them.
    inLane(lane, async () => {
      try {
        if (!existsSync(dir)) return
        const facts = await reads.run(() => statusFacts(dir))
        if (s.sent && sameGitFacts(s.sent, facts)) return
        s.sent = facts
        emit(lane, { kind: 'git', facts })
      } catch (e) {
        log(`${lane}: git facts not read: ${(e as Error).message}`)
      } finally {
        s.reading = false
        if (s.again) {
          s.again = false
          read(lane, dir)
        }
      }
    })
  }

  return {
    /** Read a lane's worktree now (it started, reported or ended). */
    read,
    /** One look at the live lanes: each whose stamp moved is read, and the one read longest ago if that was over
     * REFRESH_MS ago. Lanes not in the look are no longer followed (they ended). */
    look(live: { lane: string; dir: string }[]) {
      const now = Date.now()
      const names = new Set(live.map((l) => l.lane))
      for (const lane of seen.keys()) if (!names.has(lane)) seen.delete(lane)
      let oldest: { lane: string; dir: string; at: number } | undefined
      for (const { lane, dir } of live) {
        const s = seen.get(lane)
        if (!s || s.stamp !== stampOf(s)) read(lane, dir)
        else if (
          !s.reading &&
          s.stamp !== NO_GIT_STAMP &&
          now - s.readAt >= REFRESH_MS &&
          (!oldest || s.readAt < oldest.at)
        )
          oldest = { lane, dir, at: s.readAt }
      }
      if (oldest) read(oldest.lane, oldest.dir)
    },
  }
}

export type LaneGit = ReturnType<typeof laneGit>
