import { SvcError } from '../../domain/errors.js'
import { gitTry, serialized } from '../git.js'

/** Fetch one ref of a repository on a host into `repo` here, over the host's ssh connection (git's own protocol,
 * so any size streams). Fails with git's first fatal line (its last only says the connection ended). */
export function fetchFromHost(
  repo: string,
  over: { sshCommand: string; url: string },
  from: string,
  to: string,
): Promise<void> {
  return serialized(repo, async () => {
    const r = await gitTry(
      repo,
      ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', over.url, `+${from}:${to}`],
      // No automatic gc in the middle of a report's acceptance.
      { GIT_SSH_COMMAND: over.sshCommand, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'gc.auto', GIT_CONFIG_VALUE_0: '0' },
    )
    if (r.ok) return
    const lines = r.stderr.split('\n').map((l) => l.trim())
    const said = lines.find((l) => l.startsWith('fatal:')) ?? lines.filter(Boolean).at(-1) ?? `exit code ${r.code}`
    throw new SvcError('conflict', `git fetch failed in ${repo}: ${said}`)
  })
}
