import { shortLine } from './errors.js'
import { allow, refuse, type Decision } from './refusal.js'

/** SPEC.md 8 "Configuration": a verb that acts on a project is given one (--project, or the launcher's), or runs
 * from inside a checkout listed in projects.yaml (`key`: the one found, if any). `what` names what needs it. */
export const projectNamed = (key: string | undefined, what: string): Decision<{ key: string }> =>
  key
    ? allow({ key })
    : refuse('usage', `no project for ${what}: pass --project, or run from inside a checkout listed in projects.yaml`)

/** SPEC.md 8 "Configuration": the project named is one of projects.yaml (at `configPath`); `entry` is its entry, if
 * any. `listed`: the keys to offer in the hint, when the verb offers them. */
export const projectListed = <E extends object>(
  key: string,
  entry: E | undefined,
  configPath: string,
  listed?: readonly string[],
): Decision<{ entry: E }> =>
  entry
    ? allow({ entry })
    : refuse(
        'not_found',
        `no project ${shortLine(key)} in ${configPath}`,
        listed?.length ? `projects: ${listed.join(', ')}` : undefined,
      )
