import { execFile } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { loginFact, LOGIN_STATUS_ARGS, type ToolFact } from '../domain/doctor.js'

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
  return new Promise((resolve) =>
    execFile(found, versionArgs, { timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const first = (s: string) =>
        s
          .split('\n')
          .find((l) => l.trim())
          ?.trim()
      if (err) resolve({ path: found, error: first(stderr) ?? first(err.message) ?? 'failed' })
      else resolve({ path: found, version: first(stdout) ?? first(stderr) })
    }),
  )
}

/** A harness CLI: where it is, its version, and whether it is logged in (its own status command). */
export async function harnessFact(name: 'claude' | 'codex', path = process.env.PATH ?? ''): Promise<ToolFact> {
  const fact = await toolFact(name, ['--version'], path)
  if (!fact.path || fact.error) return fact
  const said = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    execFile(fact.path!, LOGIN_STATUS_ARGS[name], { timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    ),
  )
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
