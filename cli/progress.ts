import type { Io } from './io.js'

/** On a TTY, show how long a wait has lasted while the promise is pending; elsewhere print nothing. */
export async function withProgress<T>(io: Io, label: string, p: Promise<T>): Promise<T> {
  if (!io.isTTY) return p
  const started = Date.now()
  const tick = () => io.err(`\r${label}... ${Math.round((Date.now() - started) / 1000)}s`)
  const timer = setInterval(tick, 1000)
  try {
    return await p
  } finally {
    clearInterval(timer)
    if (Date.now() - started >= 1000) io.err('\r\x1b[K')
  }
}
