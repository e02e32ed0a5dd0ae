import { execFileSync } from 'node:child_process'
import { readdirSync, statSync, existsSync } from 'node:fs'
import { join } from 'node:path'

/** Every file under the given roots with its size and mtime (the kernel's and runners' logs aside, the socket of the
 * home's runner, which comes and goes with its lanes, and the git facts
 * the kernel keeps for its next start, a cache it writes when it likes), plus the repository's
 * refs: two snapshots compare equal when nothing was created, changed or removed. */
export function snapshot(roots: string[], repo?: string): string {
  const lines: string[] = []
  const walk = (dir: string) => {
    if (!existsSync(dir)) return
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (['kernel.log', 'runner.log', 'runner.sock'].includes(e.name) || /^\.?git-facts\.json/.test(e.name)) continue
      if (e.isDirectory()) {
        lines.push(`d ${p}`)
        walk(p)
      } else {
        const s = statSync(p, { throwIfNoEntry: false })
        if (s) lines.push(`f ${p} ${s.size} ${s.mtimeMs}`)
      }
    }
  }
  roots.forEach(walk)
  if (repo)
    lines.push(
      execFileSync('git', ['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: repo, encoding: 'utf8' }),
    )
  return lines.sort().join('\n')
}
