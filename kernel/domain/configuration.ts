import type { Effort, Harness } from './keys.js'
import { ALLOWED, refuse, type Decision } from './refusal.js'

/** SPEC.md 8 Configuration, `roles.<role>`: the defaults of a role from the project's gauntlet block. */
export interface RoleDefaults {
  model?: string
  effort?: Effort
  harness?: Harness
}

/** SPEC.md 8 configuration constraints and 4.1 reap step 2: is `inner` equal to or inside `outer` (both absolute,
 * normalised real paths)? */
export const isWithin = (inner: string, outer: string) =>
  inner === outer || inner.startsWith(outer.endsWith('/') ? outer : outer + '/')

/** SPEC.md 8 configuration constraints: the lanes root lies under the user's home, outside /tmp, and does not contain
 * the checkout. All paths are real paths; `tmp` is the real path of /tmp where that is a link (macOS). /tmp is checked
 * first: a root there is named for what it is even when the home is elsewhere. */
export function lanesRootProblem(root: string, home: string, checkout: string, tmp = '/tmp'): string | undefined {
  if (isWithin(root, '/tmp') || isWithin(root, tmp)) return `the lanes root ${root} lies under /tmp`
  if (!isWithin(root, home) || root === home) return `the lanes root ${root} is not under the home directory ${home}`
  if (isWithin(checkout, root)) return `the lanes root ${root} contains the project checkout ${checkout}`
  return undefined
}

/** SPEC.md 8 Configuration, `lanes_root`: the configured directory, `~` read as the home (a relative one is relative
 * to the checkout, where the service resolves it), else the default: a sibling of the checkout, `<project
 * dir>-lanes`. */
export const lanesRootSetting = (checkout: string, configured: string | undefined, home: string) =>
  configured === undefined ? `${checkout}-lanes` : configured.replace(/^~(?=\/|$)/, home)

/** SPEC.md 8 Configuration, `<project>.path`: a launch needs the project's checkout to exist. */
export const checkoutFound = (configPath: string, key: string, path: string, exists: boolean): Decision =>
  exists ? ALLOWED : refuse('usage', `${configPath}: ${key}.path: the checkout ${path} does not exist`)

/** SPEC.md 8 configuration constraints: a launch into a project whose lanes root breaks one is refused, naming it. */
export const lanesRootFits = (configPath: string, key: string, problem: string | undefined): Decision =>
  problem === undefined ? ALLOWED : refuse('usage', `${configPath}: ${key}.gauntlet.lanes_root: ${problem}`)

/** SPEC.md 8 Configuration: a project named by a user is an own key of projects.yaml (never `__proto__` and the
 * like). */
export const projectEntry = <P>(projects: Record<string, P>, key: string): P | undefined =>
  Object.hasOwn(projects, key) ? projects[key] : undefined

/** SPEC.md 8 Configuration, `roles.<role>`: a role's defaults in a project's gauntlet block, own keys only. */
export function roleConfig<R>(
  entry: { gauntlet?: { roles?: Partial<Record<string, R>> } },
  role: string,
): R | undefined {
  const roles = entry.gauntlet?.roles
  return roles && Object.hasOwn(roles, role) ? roles[role] : undefined
}

/** SPEC.md 4.1 start rule 5: the base ref is `origin/<default branch>`: the project's `default_branch`, else the branch
 * origin's HEAD names, else `main`. */
export const baseRef = (defaultBranch: string | undefined, originHead: string | undefined) =>
  `origin/${defaultBranch ?? originHead ?? 'main'}`
