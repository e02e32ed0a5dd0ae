import type { Adapters } from '../io/adapters.js'
import { codeRedeemable, sessionLive } from '../domain/deck-credentials.js'
import { decided } from './decided.js'

/** How long a deck link's code and a deck session live. */
const DECK_LIFETIMES = { codeMs: 120_000, sessionMs: 12 * 3600_000 }

/** The deck's own credentials, held in this kernel's memory only (a kernel restart revokes them all): one-time
 * codes that a browser trades for a session, and the sessions. A session is never the bearer token: it is
 * accepted on the deck's routes only, so a cookie that leaks to another server on the loopback opens no API. */
export class DeckAccess {
  private codes = new Map<string, number>()
  private sessions = new Map<string, number>()

  constructor(
    private readonly io: Pick<Adapters, 'clock' | 'ids'>,
    private readonly lifetimes = DECK_LIFETIMES,
  ) {}

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
    this.sessions.set(session, sessionExpiresAt)
    return { session, expiresAt: sessionExpiresAt }
  }

  check(session: string): { expiresAt: number } {
    const expiresAt = this.sessions.get(session)
    const live = sessionLive(expiresAt, this.now())
    if (!live.ok) this.sessions.delete(session)
    decided(live)
    return { expiresAt: expiresAt! }
  }

  /** End every session and every code not yet used. */
  revoke(): { revoked: number } {
    const revoked = this.sessions.size
    this.sessions.clear()
    this.codes.clear()
    return { revoked }
  }

  private sweep() {
    const now = this.now()
    for (const m of [this.codes, this.sessions]) for (const [k, at] of m) if (at <= now) m.delete(k)
  }
}
