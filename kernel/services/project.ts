import type { ConversationRecord } from '../domain/conversation.js'
import {
  baseRef,
  checkoutFound,
  lanesRootFits,
  lanesRootProblem,
  lanesRootSetting,
  projectEntry,
} from '../domain/configuration.js'
import { projectListed, projectNamed } from '../domain/projects.js'
import type { Files } from '../io/adapters.js'
import type { ProjectEntry } from '../io/config.js'
import { basename, dirname, join, resolve as resolvePath } from '../io/paths.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'

// The project a verb acts on, its checkout, lanes root and base ref: gathered for launches, worker runs, issues,
// the deck's diffs and doctor alike.

/** Real path of a path that may not exist yet: the deepest existing ancestor resolved, the rest appended. */
function realPathOf(files: Files, p: string): string {
  const abs = resolvePath(p)
  let head = abs
  const tail: string[] = []
  while (!files.exists(head)) {
    tail.unshift(basename(head))
    const up = dirname(head)
    if (up === head) break
    head = up
  }
  return join(files.realpath(head), ...tail)
}

export interface ProjectContext {
  key: string
  entry: ProjectEntry
  checkout: string
  lanesRoot: string
}

/** The project a verb acts on: the one named, else the one whose checkout holds `cwd`; it must be listed in
 * projects.yaml. `listKeys`: offer the listed keys in the refusal's hint. */
export async function namedProject(
  ctx: KernelContext,
  requested: string | undefined,
  cwd: string | undefined,
  what: string,
  listKeys = false,
): Promise<{ key: string; entry: ProjectEntry }> {
  const projects = await ctx.config.projects()
  const key = decided(
    projectNamed(requested || (cwd ? ctx.config.holding(projects, realPathOf(ctx.io.files, cwd)) : undefined), what),
  ).key
  const { entry } = decided(
    projectListed(key, projectEntry(projects, key), ctx.config.path, listKeys ? Object.keys(projects) : undefined),
  )
  return { key, entry }
}

/** The project of a launch: --project, else the launcher's, else the one whose checkout holds the caller's cwd. */
export async function resolveProject(
  ctx: KernelContext,
  requested: string | undefined,
  launcher: ConversationRecord,
  cwd: string | undefined,
): Promise<ProjectContext> {
  const files = ctx.io.files
  const { key, entry } = await namedProject(ctx, requested ?? launcher.project, cwd, 'this launch')
  decided(checkoutFound(ctx.config.path, key, entry.path, files.exists(entry.path)))
  const checkout = files.realpath(entry.path)
  const { lanesRoot, problem } = lanesRootOf(files, entry, checkout)
  decided(lanesRootFits(ctx.config.path, key, problem))
  return { key, entry, checkout, lanesRoot }
}

/** The base ref of a project's launches and diffs (launch rule 5): only asks origin's HEAD when no default_branch is
 * set. */
export const baseOf = async (
  ctx: KernelContext,
  entry: Pick<ProjectEntry, 'default_branch'> | undefined,
  repo: string,
) => baseRef(entry?.default_branch, entry?.default_branch === undefined ? await ctx.io.git.originHead(repo) : undefined)

/** A project's lanes root (configured, else a sibling of the checkout), as a real path, and the rule it breaks.
 * A configured `~/…` is under the home and a relative one is relative to the checkout, never to wherever the
 * kernel happened to be started. */
export function lanesRootOf(
  files: Files,
  entry: ProjectEntry,
  checkout: string,
): { lanesRoot: string; problem?: string } {
  const home = files.userHome()
  const lanesRoot = realPathOf(
    files,
    resolvePath(checkout, lanesRootSetting(checkout, entry.gauntlet?.lanes_root, home)),
  )
  return {
    lanesRoot,
    problem: lanesRootProblem(lanesRoot, realPathOf(files, home), checkout, realPathOf(files, '/tmp')),
  }
}
