import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The host runner as one file (built by cli/postbuild.ts beside the compiled runner), and its hash. */
export function hostRunnerFile(): { text: string; hash: string } {
  const text = readFileSync(fileURLToPath(new URL('../../runner/host-runner.mjs', import.meta.url)), 'utf8')
  return { text, hash: createHash('sha256').update(text).digest('hex') }
}
