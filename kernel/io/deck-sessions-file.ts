import { readFileSync } from 'node:fs'
import { writeFileAtomicSync } from './atomic-file.js'

type Saved = [digest: string, expiresAt: number][]

/** deck-sessions.json in the home (mode 0600): the deck sessions' digests and ends, so a restarted kernel knows the
 * browsers it let in. A file that is missing, does not parse or holds anything else reads as no session (the
 * browsers are asked for a new link), with one line saying why. */
export function deckSessionsFile(path: string, warn: (message: string) => void) {
  return {
    load(): Saved {
      let json: unknown
      try {
        json = JSON.parse(readFileSync(path, 'utf8'))
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
          warn(`${path} is unreadable (${(e as Error).message}); deck sessions start anew`)
        return []
      }
      const list = (json as { sessions?: unknown })?.sessions
      const ok =
        Array.isArray(list) &&
        list.every(
          (s) => Array.isArray(s) && s.length === 2 && /^[0-9a-f]{64}$/.test(String(s[0])) && Number.isFinite(s[1]),
        )
      if (!ok) warn(`${path} does not hold deck sessions; deck sessions start anew`)
      return ok ? (list as Saved) : []
    },
    save(sessions: Saved) {
      try {
        writeFileAtomicSync(path, JSON.stringify({ sessions }) + '\n')
      } catch (e) {
        warn(`could not keep the deck sessions in ${path}: ${(e as Error).message}`)
      }
    },
  }
}
