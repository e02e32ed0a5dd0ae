import { execFileSync } from 'node:child_process'
import { closeSync, constants, existsSync, openSync } from 'node:fs'
import { join } from 'node:path'

/** Points a lane's shell script waits at until the test lets it on, without a poll: each gate is a named pipe in
 * `dir`, and the script's line opens it for reading, which blocks until some process holds it open for writing.
 * `open(n)` opens it (read and write, so the open itself never blocks) and holds it until `close()`: every reader,
 * now or later, goes on at once. A script waiting at a gate costs no processor time (a `sleep` loop started a
 * process every 50 ms for each lane). */
export class Gates {
  private readonly held = new Map<string, number>()

  constructor(private readonly dir: string) {}

  private pipe(n: string): string {
    const p = join(this.dir, `go-${n}`)
    if (!existsSync(p)) execFileSync('mkfifo', ['-m', '600', p])
    return p
  }

  /** A shell line that blocks until `open(n)`. */
  line(n: string): string {
    return `: < '${this.pipe(n)}'`
  }

  open(n: string): void {
    if (!this.held.has(n)) this.held.set(n, openSync(this.pipe(n), constants.O_RDWR))
  }

  /** Lets go of every gate opened (a script that reaches one later waits again). */
  close(): void {
    for (const fd of this.held.values()) closeSync(fd)
    this.held.clear()
  }
}
