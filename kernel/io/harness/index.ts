import { shellAdapter } from './shell.js'
import { claudeAdapter } from './claude.js'
import { codexAdapter } from './codex.js'
import type { HarnessAdapter } from './types.js'

const adapters: Record<string, HarnessAdapter> = { shell: shellAdapter, claude: claudeAdapter, codex: codexAdapter }

/** The adapter of a harness that a runner drives; `none` has no runner and no adapter. */
export function adapterFor(harness: string): HarnessAdapter | undefined {
  return adapters[harness]
}
