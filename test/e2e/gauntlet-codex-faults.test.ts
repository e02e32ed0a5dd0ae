import { test } from 'uvu'
import { eachGauntlet } from './gauntlet-kit.js'
import { faultsMidTurn } from './gauntlet-runs.js'

/** Codex lanes whose model service fails mid-turn after real work: the status each is left in, and how a wait on it
 * ends. (A Codex lane's needs-you is proven in harness-codex-asks.test.ts.) */

const now = eachGauntlet('codex')

test('a 529, a 401 and a broken stream after real work: idle (error: …) and idle (no report), never failed-to-start; each wait ends at once with exit 2 and a tell', () =>
  faultsMidTurn(now, 'codex', {
    'http-529':
      /: idle \(error: unexpected status 529 <unknown status code>: Overloaded, url: http:\/\/127\.0\.0\.1:\d+\/v1\/responses\)$/,
    'http-401': /: idle \(error: unexpected status 401 Unauthorized: invalid x-api-key, url: /,
    broken: /: idle \(error: stream disconnected before completion: /,
  }))

test.run()
