import type { Adapters } from '../io/adapters.js'
import { codeRedeemable, sessionLive } from '../domain/deck-credentials.js'
import { decided } from './decided.js'

/** How long a deck link's code and a deck session live. */
const DECK_LIFETIMES = { codeMs: 120_000, sessionMs: 12 * 3600_000 }

/** Where the sessions are kept across a kernel's restart: digests and ends, never a session itself. */
export interface SavedSessions {
  load(): [digest: string, expiresAt: number][]
  save(sessions: [digest: string, expiresAt: number][]): void
}

/** The deck's own credentials: one-time codes that a browser trades for a session (in memory only), and the
 * sessions, known by their digest and kept in the home when `saved` is given, so a restarted kernel (on the same
 * port, kernel-port) still answers the deck pages that were open. A session is never the bearer token: it is
 * accepted on the deck's routes only, so a cookie that leaks to another server on the loopback opens no API. */
export class DeckAccess {
  private codes = new Map<string, number>()
  /** By the session's digest. */
  private sessions = new Map<string, number>()

  constructor(
    private readonly io: Pick<Adapters, 'clock' | 'ids'>,
    private readonly lifetimes = DECK_LIFETIMES,
    private readonly saved?: SavedSessions,
  ) {
    for (const [digest, at] of saved?.load() ?? []) if (at > this.now()) this.sessions.set(digest, at)
  }

  private digest(session: string) {
    return this.io.ids.sha256(session)
  }

  private persist() {
    this.saved?.save([...this.sessions])
  }

  private now() {
    return this.io.clock.now()
  }

  issue(): { code: string; expiresAt: number } {
    this.sweep()
    const code = this.io.ids.token(18)
    const expiresAt = this.now() + this.lifetimes.codeMs
    this.codes.set(code, expiresAt)
    return { code, expiresAt }
  }

  /** Trade a code (once, within its life) for a new session. */
  redeem(code: string): { session: string; expiresAt: number } {
    const expiresAt = this.codes.get(code)
    this.codes.delete(code)
    decided(codeRedeemable(expiresAt, this.now()))
    this.sweep()
    const session = this.io.ids.token(32)
    const sessionExpiresAt = this.now() + this.lifetimes.sessionMs
    this.sessions.set(this.digest(session), sessionExpiresAt)
    this.persist()
    return { session, expiresAt: sessionExpiresAt }
  }

  check(session: string): { expiresAt: number } {
    const expiresAt = this.sessions.get(this.digest(session))
    const live = sessionLive(expiresAt, this.now())
    if (!live.ok && this.sessions.delete(this.digest(session))) this.persist()
    decided(live)
    return { expiresAt: expiresAt! }
  }

  /** End every session and every code not yet used. */
  revoke(): { revoked: number } {
    const revoked = this.sessions.size
    this.sessions.clear()
    this.codes.clear()
    this.persist()
    return { revoked }
  }

  private sweep() {
    const now = this.now()
    for (const m of [this.codes, this.sessions]) for (const [k, at] of m) if (at <= now) m.delete(k)
  }
}
