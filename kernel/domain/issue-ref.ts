/** Issue references (DESIGN.md 3, workers): `local:<n>` (an issue svc keeps itself, per project),
 * `gh:<owner>/<repo>#<n>` (a GitHub issue), and `#<n>`, a GitHub issue of the repository the project's origin
 * names. GitHub names are case-insensitive, so a reference is kept lower-cased: one issue, one reference. */

import { ALLOWED, allow, refuse, type Decision, type Refusal } from './refusal.js'

export type IssueRef =
  { tracker: 'local'; number: number } | { tracker: 'gh'; owner: string; repo: string; number: number }

/** A GitHub repository, as the project's origin names it. */
export interface GithubRepo {
  owner: string
  repo: string
}

const NUMBER = /^[1-9][0-9]{0,8}$/
/** GitHub accounts: letters, digits and hyphens, not starting with a hyphen; never a dot (see issueSlug). */
const OWNER = /^[a-z0-9][a-z0-9-]{0,38}$/
const REPO = /^[a-z0-9._-]{1,100}$/

const ISSUE_REF_FORMS = 'local:<n>, gh:<owner>/<repo>#<n> or #<n>'

/** Why an owner or repository name is refused, if it is. */
function githubNameProblem(owner: string, repo: string): string | undefined {
  if (!OWNER.test(owner))
    return (
      `'${owner}' is not a GitHub account name (letters, digits and hyphens, at most 39, not starting with a ` +
      `hyphen)`
    )
  if (!REPO.test(repo) || /^\.+$/.test(repo))
    return `'${repo}' is not a GitHub repository name (letters, digits, '.', '_' and '-', at most 100)`
  // The repository is part of a worker's branch name, and git refuses '..' in a ref.
  if (repo.includes('..'))
    return `the repository name '${repo}' holds '..', which no git branch may; svc cannot run workers on it`
  return undefined
}

/** A reference read: its value, or the usage refusal saying why it is none. */
export type Parsed<T> = Decision<{ value: T }>

const bad = (text: string, why: string): Refusal => refuse('usage', `'${text}' is not an issue reference: ${why}`)

/** What a reference says before the project is known: `#<n>` waits for the project's origin (onOrigin). */
type ParsedRef = IssueRef | { tracker: 'origin'; number: number }

/** Parse a reference. */
export function parseIssueRef(text: string): Parsed<ParsedRef> {
  const trimmed = text.trim()
  if (trimmed.startsWith('local:')) {
    const n = trimmed.slice('local:'.length)
    return NUMBER.test(n)
      ? { ok: true, value: { tracker: 'local', number: Number(n) } }
      : bad(text, 'the number after local: must be a whole number from 1')
  }
  if (trimmed.startsWith('#')) {
    const n = trimmed.slice(1)
    return NUMBER.test(n)
      ? { ok: true, value: { tracker: 'origin', number: Number(n) } }
      : bad(text, 'the number after # must be a whole number from 1')
  }
  if (trimmed.startsWith('gh:')) {
    const m = /^gh:([^/#]*)\/([^/#]*)#(.*)$/.exec(trimmed)
    if (!m) return bad(text, 'write gh:<owner>/<repo>#<n>')
    const [owner, repo] = [m[1].toLowerCase(), m[2].toLowerCase()]
    const problem = githubNameProblem(owner, repo)
    if (problem) return bad(text, problem)
    if (!NUMBER.test(m[3])) return bad(text, 'the number after # must be a whole number from 1')
    return { ok: true, value: { tracker: 'gh', owner, repo, number: Number(m[3]) } }
  }
  return bad(text, `write ${ISSUE_REF_FORMS}`)
}

/** `#<n>` made a GitHub reference with the project's origin (the fact `origin`, absent when the origin is not on
 * github.com); any other reference as it is. */
export function onOrigin(ref: ParsedRef, origin: GithubRepo | undefined): Parsed<IssueRef> {
  if (ref.tracker !== 'origin') return { ok: true, value: ref }
  if (!origin)
    return bad(
      `#${ref.number}`,
      `#<n> names an issue of the project's origin on github.com, and this project's origin is not there; write ` +
        `gh:<owner>/<repo>#${ref.number}`,
    )
  return { ok: true, value: { tracker: 'gh', owner: origin.owner, repo: origin.repo, number: ref.number } }
}

/** README "Issues": svc closes only its own local issues; a GitHub one is closed on GitHub. */
export const mayCloseHere = (ref: IssueRef): Decision =>
  ref.tracker === 'gh'
    ? refuse(
        'usage',
        `svc closes only its own local issues; close ${formatIssueRef(ref)} on GitHub`,
        `gh issue close ${ref.number} -R ${ref.owner}/${ref.repo}`,
      )
    : ALLOWED

/** README "Issues": a title is one line of plain text (it is printed in tables and on terminals: no escape
 * sequence may ride in it); `title` as given, trimmed here. */
export function issueTitleFits(title: string): Decision<{ title: string }> {
  const t = title.trim()
  if (!t) return refuse('usage', 'the title is empty; pass --title <text>')
  if (/[\r\n]/.test(t)) return refuse('usage', 'the title must be one line; put the rest in --body or --body-file')
  if (/[\x00-\x1f\x7f]/.test(t)) return refuse('usage', 'the title holds a control character; write it as plain text')
  return allow({ title: t })
}

/** The reference as svc prints it. */
export const formatIssueRef = (ref: IssueRef): string =>
  ref.tracker === 'local' ? `local:${ref.number}` : `gh:${ref.owner}/${ref.repo}#${ref.number}`

/** The tracker/id pair a worker's directory and branch are named with: `local-<n>`, or `gh-<owner>+<repo>-<n>`.
 * Unambiguous: an owner holds no '+' nor '.', a repository no '+', and the number is the digits after the last
 * '-'. A valid git ref component: it starts with a letter, ends with a digit, and holds no '..' (refused above).
 * Lower case, so two spellings of one GitHub issue share one worker. */
export const issueSlug = (ref: IssueRef): string =>
  ref.tracker === 'local' ? `local-${ref.number}` : `gh-${ref.owner}+${ref.repo}-${ref.number}`

/** The GitHub repository a remote URL names (https, ssh or scp-like form), or undefined for any other host. */
export function parseGithubRemote(url: string): GithubRepo | undefined {
  const m =
    /^(?:https?|git|ssh):\/\/(?:[^@/]+@)?github\.com(?::\d+)?\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(url.trim()) ??
    /^(?:[^@/:]+@)?github\.com:([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(url.trim())
  if (!m) return undefined
  const [owner, repo] = [m[1].toLowerCase(), m[2].toLowerCase()]
  return githubNameProblem(owner, repo) ? undefined : { owner, repo }
}
