/** The one formatter of time and money: the CLI and the deck's browser code both import this module, so a cost or
 * an age reads the same in a terminal and on a page. Pure: the clock is passed in. */

/** A cost as the list and the deck print it: `~` marks an estimate. */
export function costText(c: { usd: number; estimated: boolean }): string {
  return `${c.estimated ? '~' : ''}${usdText(c.usd)}`
}

/** Dollars as every table, show and the deck print them: cents, and under a cent its first two significant digits
 * (`$0.0035`, `$0.00012`), so a small cost never reads as nothing. */
export function usdText(usd: number): string {
  if (!(usd > 0) || usd >= 0.00995) return `$${usd.toFixed(2)}`
  if (usd < 1e-8) return '<$0.00000001'
  const digits = Math.min(8, 1 - Math.floor(Math.log10(usd)))
  return `$${usd.toFixed(digits).replace(/0+$/, '')}`
}

/** How long ago `ms` was, at `now`: the largest whole unit (s, m, h, d). */
export function age(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86400)}d`
}

/** The time of day of `ms` (UTC), as a transcript line starts. */
export const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 19)
