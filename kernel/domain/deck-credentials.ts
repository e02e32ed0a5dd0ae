import { ALLOWED, refuse, type Decision } from './refusal.js'

/** README "HTTP API and the deck": a deck link's code is traded once, within its life (`expiresAt`: absent once
 * used, or never issued). */
export const codeRedeemable = (expiresAt: number | undefined, now: number): Decision =>
  expiresAt !== undefined && expiresAt > now
    ? ALLOWED
    : refuse('unauthorized', 'this deck link was used already or has expired; run svc deck for a new one')

/** README "HTTP API and the deck": a deck session opens the deck until it expires or is revoked (`expiresAt`: absent
 * once revoked, or never made). */
export const sessionLive = (expiresAt: number | undefined, now: number): Decision =>
  expiresAt !== undefined && expiresAt > now
    ? ALLOWED
    : refuse('unauthorized', 'the deck session has expired or was revoked; run svc deck for a new link')
