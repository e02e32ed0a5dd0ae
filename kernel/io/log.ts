import { appendFileSync } from 'node:fs'

export type Log = (level: 'info' | 'warn' | 'error', message: string) => void

/** Lines of kernel.log: time, level, message. */
export const fileLog =
  (path: string): Log =>
  (level, message) => {
    try {
      appendFileSync(path, `${new Date().toISOString()} ${level} ${message}\n`, { mode: 0o600 })
    } catch {}
  }
