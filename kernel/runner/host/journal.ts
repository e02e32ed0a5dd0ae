import { appendFileSync, fsyncSync, openSync, writeFileSync } from 'node:fs'
import { journalAfterAck, nextSeq, toResend, type HostEvent, type HostEventBody } from '../../domain/host-stream.js'
import { writeFileAtomicSync } from '../../io/atomic-file.js'
import { readText, type RunnerPaths } from './files.js'

const parseLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as HostEvent]
      } catch {
        return [] // a line cut by a crash mid-write was never sent
      }
    })

/** The runner's journal: each event numbered, written with fsync before it is sent (`send`), and kept until the
 * kernel acknowledges it, so a reconnect or a restart of the runner loses none. Reopened from disk at start. */
export function openJournal(p: Pick<RunnerPaths, 'journal' | 'acked'>, send: (e: HostEvent) => void) {
  let acked = Number(readText(p.acked)) || 0
  let kept = journalAfterAck(parseLines(readText(p.journal) ?? ''), acked)
  let seq = nextSeq(kept, acked)
  const fd = openSync(p.journal, 'a', 0o600)
  let ackTimer: NodeJS.Timeout | undefined

  // Group commit: the events of one turn are written and synced together, then sent; none leaves before its sync.
  // What made an event (a report file, a lane's end) is let go only after the event is synced (`done`).
  let unsynced: { e: HostEvent; done?: () => void }[] = []
  const flush = () => {
    const batch = unsynced
    unsynced = []
    appendFileSync(fd, batch.map((b) => JSON.stringify(b.e) + '\n').join(''))
    fsyncSync(fd)
    for (const b of batch) {
      b.done?.()
      send(b.e)
    }
  }

  return {
    /** The next event of a lane; `done` runs once it is synced. */
    emit(lane: string, body: HostEventBody, done?: () => void) {
      const e = { seq: seq++, at: Date.now(), lane, ...body } as HostEvent
      kept.push(e)
      if (!unsynced.length) setImmediate(flush)
      unsynced.push({ e, done })
    },
    /** The kernel holds every event up to `upTo`. */
    ack(upTo: number) {
      if (upTo <= acked) return
      acked = upTo
      kept = journalAfterAck(kept, acked)
      // Kept lazily: an ack lost in a crash only means events sent again, which the kernel skips.
      if (!ackTimer)
        ackTimer = setTimeout(() => {
          ackTimer = undefined
          writeFileAtomicSync(p.acked, String(acked))
          // Everything acknowledged: the journal starts again empty (what was in it is held at home).
          if (!kept.length && !unsynced.length) writeFileSync(p.journal, '')
        }, 50)
    },
    /** What follows the kernel's cursor. */
    after: (cursor: number) => toResend(kept, cursor),
    last: () => seq - 1,
    acked: () => acked,
    unacknowledged: () => kept.length,
  }
}

export type Journal = ReturnType<typeof openJournal>
