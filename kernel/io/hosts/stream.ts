import { createInterface } from 'node:readline'
import { startDriven } from '../process.js'

/** A long-lived ssh command whose stdin and stdout carry lines (the host runner's stream). */
export interface LineStream {
  send(line: string): void
  close(): void
}

/** Start `ssh <args>`; each stdout line goes to `onLine`, and `onClose` is called once with what ended it. */
export function openLineStream(
  args: string[],
  onLine: (line: string) => void,
  onClose: (why: string) => void,
): LineStream {
  const child = startDriven(['ssh', ...args], { cwd: process.cwd(), env: { ...process.env, LC_ALL: 'C' }, stdin: true })
  let stderr = ''
  let closed = false
  const close = (why: string) => {
    if (closed) return
    closed = true
    onClose(why)
  }
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString('utf8')
  })
  createInterface({ input: child.stdout! }).on('line', onLine)
  child.stdin!.on('error', () => {})
  child.on('error', (e) => close(`cannot run ssh: ${e.message}`))
  child.on('close', (code, signal) => {
    const said = stderr
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1)
    close(`ssh ${signal ? `ended by ${signal}` : `exited ${code}`}${said ? `: ${said}` : ''}`)
  })
  return {
    send: (line) => {
      if (!closed) child.stdin!.write(line + '\n')
    },
    close: () => {
      child.stdin!.end()
      child.kill('SIGTERM')
    },
  }
}
