import type { Files } from '../io/adapters.js'
import { delimiter, join } from '../io/paths.js'

/** An exported bash function `svc`: bash takes it from the environment in every shell it starts, a login shell
 * included, whose system profile resets PATH (and with it the directory that holds `svc`). */
export const SVC_FUNCTION = 'BASH_FUNC_svc%%'
const svcFunction = (svcBinDir: string) => `() { '${join(svcBinDir, 'svc').replace(/'/g, `'\\''`)}' "$@"
}`

/** The environment a harness gets: the service context (identity, home, `svc` first on PATH and as a shell
 * function), or for a play lane none at all: no SERVICE_* variable, no `svc` function and no directory on PATH that
 * holds an `svc`. */
export function harnessEnv(
  files: Pick<Files, 'exists'>,
  opts: {
    home: string
    id: string
    svcBinDir: string
    play: boolean
    extra?: Record<string, string>
    basePath?: string
  },
) {
  const path = opts.basePath ?? process.env.PATH ?? ''
  if (opts.play) {
    const kept = path.split(delimiter).filter((d) => d && d !== opts.svcBinDir && !files.exists(join(d, 'svc')))
    return { env: { PATH: kept.join(delimiter) }, envDrop: [SVC_FUNCTION], envDropPrefixes: ['SERVICE_'] }
  }
  return {
    env: {
      SERVICE_HOME: opts.home,
      SERVICE_CONVERSATION: opts.id,
      PATH: [opts.svcBinDir, ...path.split(delimiter).filter((d) => d && d !== opts.svcBinDir)].join(delimiter),
      [SVC_FUNCTION]: svcFunction(opts.svcBinDir),
      ...opts.extra,
    },
    envDrop: [],
    envDropPrefixes: ['SERVICE_'],
  }
}
