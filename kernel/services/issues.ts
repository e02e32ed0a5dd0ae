import { shortLine } from '../domain/errors.js'
import {
  formatIssueRef,
  issueTitleFits,
  mayCloseHere,
  onOrigin,
  parseGithubRemote,
  parseIssueRef,
  type GithubRepo,
  type IssueRef,
} from '../domain/issue-ref.js'
import type { LocalIssue } from '../io/trackers/local.js'
import { join } from '../io/paths.js'
import type { IssueComment, IssueFacts } from '../io/trackers/types.js'
import type { IssueView, PortInput } from '../port/port.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'
import { projectNamed } from '../domain/projects.js'
import { namedProject } from './project.js'

/** `svc issue new|list|show|close`: the issues a worker can belong to. Local issues are kept per project under
 * `<home>/issues/<project>/`; GitHub issues are read through gh. */

const PROJECT_KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/

const issuesRoot = (ctx: KernelContext) => join(ctx.home, 'issues')
const localIssues = (ctx: KernelContext, project: string) =>
  ctx.io.trackers.local(join(issuesRoot(ctx), project), project)

interface Project {
  key: string
  checkout?: string
}

/** The project named, else the one whose checkout holds `cwd`; it must be in projects.yaml. */
async function projectOf(
  ctx: KernelContext,
  requested: string | undefined,
  cwd: string | undefined,
  what: string,
): Promise<Project> {
  const { key, entry } = await namedProject(ctx, requested, cwd, what, true)
  return { key, checkout: ctx.io.files.exists(entry.path) ? ctx.io.files.realpath(entry.path) : undefined }
}

/** The GitHub repository of the project's origin, if it is on github.com. */
async function originOf(ctx: KernelContext, project: Project): Promise<GithubRepo | undefined> {
  if (!project.checkout) return undefined
  const r = await ctx.io.git.gitTry(project.checkout, ['remote', 'get-url', 'origin'])
  return r.ok ? parseGithubRemote(r.stdout.trim()) : undefined
}

/** A reference parsed; the project is looked up only when the reference needs one (`local:` and `#`). */
export async function resolveIssueRef(
  ctx: KernelContext,
  input: { ref: string; project?: string; cwd?: string },
): Promise<{ ref: IssueRef; project?: Project }> {
  const parsed = decided(parseIssueRef(input.ref))
  if (parsed.value.tracker === 'gh') return { ref: parsed.value }
  const project = await projectOf(ctx, input.project, input.cwd, `issue ${shortLine(input.ref)}`)
  const ref = decided(
    onOrigin(parsed.value, parsed.value.tracker === 'origin' ? await originOf(ctx, project) : undefined),
  )
  return { ref: ref.value, project }
}

const localView = (project: string, i: LocalIssue): IssueView => ({
  ref: formatIssueRef({ tracker: 'local', number: i.number }),
  tracker: 'local',
  project,
  title: i.title,
  state: i.state,
  url: i.url,
  created: i.created,
  ...(i.closed ? { closed: i.closed } : {}),
  body: i.body,
})

const ghView = (ref: IssueRef, f: IssueFacts): IssueView => ({
  ref: formatIssueRef(ref),
  tracker: 'gh',
  title: f.title,
  state: f.state,
  url: f.url,
  body: f.body,
})

export async function issueNew(
  ctx: KernelContext,
  input: PortInput<'issueNew'>,
  now = new Date(ctx.io.clock.now()),
): Promise<IssueView> {
  const { title } = decided(issueTitleFits(input.title))
  const project = await projectOf(ctx, input.project, input.cwd, 'the new issue')
  const issues = localIssues(ctx, project.key)
  const n = await issues.create(title, input.body ?? '', now)
  return localView(project.key, await issues.read(n))
}

export async function issueList(ctx: KernelContext, input: PortInput<'issueList'>): Promise<IssueView[]> {
  const keys =
    input.project !== undefined
      ? [(await projectOf(ctx, input.project, undefined, 'the list')).key]
      : await projectsWithIssues(ctx)
  const views = (
    await Promise.all(keys.map(async (k) => (await localIssues(ctx, k).list()).map((i) => localView(k, i))))
  ).flat()
  return input.state ? views.filter((v) => v.state === input.state) : views
}

/** Every project directory under issues/, whether or not projects.yaml still names it: nothing kept is hidden. */
async function projectsWithIssues(ctx: KernelContext): Promise<string[]> {
  try {
    return (await ctx.io.files.entries(issuesRoot(ctx)))
      .filter((d) => d.isDirectory && PROJECT_KEY.test(d.name))
      .map((d) => d.name)
      .sort()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
}

export async function issueShow(ctx: KernelContext, input: PortInput<'issueShow'>): Promise<IssueView> {
  const { ref, project } = await resolveIssueRef(ctx, input)
  if (ref.tracker === 'local') return localView(project!.key, await localIssues(ctx, project!.key).read(ref.number))
  return ghView(ref, await ctx.io.trackers.gh().resolve(ref))
}

export async function issueClose(
  ctx: KernelContext,
  input: PortInput<'issueClose'>,
  now = new Date(ctx.io.clock.now()),
): Promise<{ issue: IssueView; already: boolean }> {
  const { ref, project } = await resolveIssueRef(ctx, input)
  decided(mayCloseHere(ref))
  const { issue, already } = await localIssues(ctx, project!.key).close(ref.number, now)
  return { issue: localView(project!.key, issue), already }
}

/** The comments of a worker's issue: read to find a report already posted, and to post one. A `local:` issue is
 * its project's. */
export function issueComments(
  ctx: KernelContext,
  ref: IssueRef,
  project: string | undefined,
): { list: () => Promise<IssueComment[]>; post: (body: string) => Promise<{ url: string }> } {
  if (ref.tracker === 'gh') {
    const gh = ctx.io.trackers.gh()
    return { list: () => gh.comments(ref), post: (body) => gh.comment(ref, body) }
  }
  const local = localIssues(ctx, decided(projectNamed(project, `issue ${formatIssueRef(ref)}`)).key)
  return { list: () => local.comments(ref.number), post: (body) => local.comment(ref.number, body) }
}
