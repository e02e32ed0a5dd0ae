import * as v from 'valibot'
import { GH_INSTALL, GH_LOGIN } from '../../domain/doctor.js'
import { SvcError, oneLine } from '../../domain/errors.js'
import type { IssueComment, IssueFacts, Tracker } from './types.js'
import { runProcess, type Ran as ProcessRan } from '../process.js'

/** GitHub issues through the gh CLI: the one place svc runs it. A process result never leaves this file: callers
 * get facts or one SvcError that says what to do (install gh, log in, or what GitHub answered). */

interface GhIssue {
  owner: string
  repo: string
  number: number
}

interface GhOptions {
  /** The environment gh runs with (its PATH finds gh); the kernel's own by default. */
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

type Ran = Pick<ProcessRan, 'code' | 'stdout' | 'stderr' | 'missing'> & { timedOut?: boolean }

const IssueJson = v.object({
  title: v.string(),
  body: v.string(),
  url: v.string(),
  state: v.picklist(['OPEN', 'CLOSED']),
})
const CommentsJson = v.array(v.object({ id: v.number(), body: v.nullable(v.string()) }))
const PAGE = 100
const MAX_PAGES = 100

const slug = (i: GhIssue) => `${i.owner}/${i.repo}`
const refText = (i: GhIssue) => `gh:${slug(i)}#${i.number}`
const lastLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1) ?? ''

export class GhTracker implements Tracker<GhIssue> {
  constructor(private readonly opts: GhOptions = {}) {}

  async resolve(i: GhIssue): Promise<IssueFacts> {
    const r = await this.gh(['issue', 'view', String(i.number), '-R', slug(i), '--json', 'title,body,url,state'], i)
    const parsed = v.safeParse(IssueJson, parseJson(r.stdout))
    if (!parsed.success)
      throw new SvcError(
        'unavailable',
        `gh issue view ${i.number} -R ${slug(i)} answered with something other than the issue's JSON: ` +
          `${oneLine(r.stdout.trim(), 200)}`,
      )
    const { title, body, url, state } = parsed.output
    return { title, body, url, state: state === 'OPEN' ? 'open' : 'closed' }
  }

  async comments(i: GhIssue): Promise<IssueComment[]> {
    const all: IssueComment[] = []
    for (let page = 1; page <= MAX_PAGES; page++) {
      const r = await this.gh(['api', `repos/${slug(i)}/issues/${i.number}/comments?per_page=${PAGE}&page=${page}`], i)
      const parsed = v.safeParse(CommentsJson, parseJson(r.stdout))
      if (!parsed.success)
        throw new SvcError(
          'unavailable',
          `gh api answered the comments of ${refText(i)} with something other than a JSON list: ` +
            `${oneLine(r.stdout.trim(), 200)}`,
        )
      all.push(...parsed.output.map((c) => ({ id: String(c.id), body: c.body ?? '' })))
      if (parsed.output.length < PAGE) break
    }
    return all
  }

  async comment(i: GhIssue, body: string): Promise<{ posted: true; url: string }> {
    const r = await this.gh(['issue', 'comment', String(i.number), '-R', slug(i), '--body-file', '-'], i, body)
    return { posted: true, url: lastLine(r.stdout) }
  }

  /** gh succeeded, or one SvcError naming the fix. */
  private async gh(args: string[], i: GhIssue, input?: string): Promise<Ran> {
    const r = await runGh(args, this.opts, input)
    if (r.code === 0) return r
    throw ghError(args, r, i)
  }
}

/** What went wrong, from gh's exit code and its last words. */
function ghError(args: string[], r: Ran, i: GhIssue): SvcError {
  const said = lastLine(r.stderr) || lastLine(r.stdout)
  if (r.missing)
    return new SvcError('unavailable', `gh is not installed, so svc cannot reach ${refText(i)}`, GH_INSTALL)
  if (r.code === 4 || /gh auth login|not logged in/i.test(r.stderr))
    return new SvcError('unavailable', `gh is not logged in, so svc cannot reach ${refText(i)}`, GH_LOGIN)
  if (r.timedOut)
    return new SvcError('unavailable', `gh ${args.slice(0, 2).join(' ')} gave no answer for ${refText(i)} in time`)
  if (/Could not resolve to a Repository/i.test(r.stderr))
    return new SvcError('not_found', `no repository ${slug(i)} on GitHub (or this login cannot see it)`)
  if (/Could not resolve to an issue|Not Found \(HTTP 404\)/i.test(r.stderr))
    return new SvcError('not_found', `no issue ${refText(i)} on GitHub`)
  return new SvcError(
    'unavailable',
    `gh ${args.slice(0, 2).join(' ')} failed for ${refText(i)}: ${said || `exit code ${r.code}`}`,
  )
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Run gh with prompts and colours off. */
function runGh(args: string[], opts: GhOptions = {}, input?: string): Promise<Ran> {
  const env = {
    ...(opts.env ?? process.env),
    GH_PROMPT_DISABLED: '1',
    GH_NO_UPDATE_NOTIFIER: '1',
    NO_COLOR: '1',
    CLICOLOR: '0',
  }
  return runProcess(['gh', ...args], { env, input, timeoutMs: opts.timeoutMs ?? 30_000 }).then((r) =>
    r.error !== undefined ? { code: null, stdout: '', stderr: r.error, missing: r.missing } : r,
  )
}

/** `gh auth status`: logged in or not, and the line that says so. Exit 0 is logged in; gh prints its account
 * lines on stdout (newer releases) or stderr (older ones). */
export async function ghAuthStatus(opts: GhOptions = {}): Promise<{ loggedIn: boolean; detail: string }> {
  const r = await runGh(['auth', 'status'], opts)
  const lines = (r.stdout + '\n' + r.stderr)
    .split('\n')
    .map((l) => l.replace(/^[\s✓✗X!-]+/, '').trim())
    .filter(Boolean)
  if (r.code === 0) return { loggedIn: true, detail: lines.find((l) => /^Logged in to /i.test(l)) ?? 'logged in' }
  return {
    loggedIn: false,
    detail: r.timedOut ? 'gh auth status gave no answer in time' : (lines[0] ?? `gh auth status exited ${r.code}`),
  }
}
