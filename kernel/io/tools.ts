import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { loginFact, LOGIN_STATUS_ARGS, type ToolFact } from '../domain/doctor.js'
import { runProcess } from './process.js'

/** The first executable file named `name` in the directories of PATH. */
function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, name)
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK)
        return candidate
      }
    } catch {}
  }
  return undefined
}

/** Where a program is and what its version flag says (first line of stdout, else stderr). */
export function toolFact(
  name: string,
  versionArgs: string[] | undefined,
  path = process.env.PATH ?? '',
): Promise<ToolFact> {
  const found = findOnPath(name, path)
  if (!found || !versionArgs) return Promise.resolve(found ? { path: found } : {})
  return runProcess([found, ...versionArgs], { timeoutMs: 10_000 }).then((r) => {
    const first = (t: string) =>
      t
        .split('\n')
        .find((l) => l.trim())
        ?.trim()
    if (r.error !== undefined || r.timedOut || r.code !== 0)
      return {
        path: found,
        error: first(r.stderr) ?? first(r.error ?? '') ?? (r.timedOut ? 'no answer in 10 s' : `exited ${r.code}`),
      }
    return { path: found, version: first(r.stdout) ?? first(r.stderr) }
  })
}

/** A harness CLI: where it is, its version, and whether it is logged in (its own status command). */
export async function harnessFact(name: 'claude' | 'codex', path = process.env.PATH ?? ''): Promise<ToolFact> {
  const fact = await toolFact(name, ['--version'], path)
  if (!fact.path || fact.error) return fact
  const r = await runProcess([fact.path, ...LOGIN_STATUS_ARGS[name]], { timeoutMs: 10_000 })
  const said = { code: r.code, stdout: r.stdout, stderr: r.stderr }
  return { ...fact, login: loginFact(name, said) }
}

/** Can files be created in `dir`? */
export function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK)
    return true
  } catch {
    return false
  }
}
