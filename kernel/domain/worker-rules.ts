import type { ConversationRecord, LaneFacts, WorkerFacts } from './conversation.js'
import { effectiveLauncher, nextIteration } from './launch.js'
import { newestBy } from './newest.js'
import { allow, refuse, type Decision } from './refusal.js'

/** The rules of `svc worker run` (SPEC.md section 1, DESIGN.md 3, workers): who may run a worker, on which issue,
 * in which directory and branch, and how its reports are posted to the issue exactly once. Each decision is data;
 * a refusal carries the error code and the exact message. */

export type { WorkerFacts }
export type WorkerRecord = ConversationRecord

/** README "Workers": the worker verbs take a worker; any other conversation is refused (as the lane verbs refuse
 * one that is not a lane). */
export const workerOf = (rec: ConversationRecord): Decision<{ rec: ConversationRecord & { worker: WorkerFacts } }> =>
  rec.worker
    ? allow({ rec: rec as ConversationRecord & { worker: WorkerFacts } })
    : refuse('not_found', `conv ${rec.id} (${rec.name}) is not a worker`)

/** What a lane and a worker share: a directory made under the lanes root at launch, known by what the launch
 * recorded. A worker's is a builder's (a worktree on a branch of its own), so the code that makes, claims, reports
 * from and reaps a lane's directory serves a worker's as it is. */
type WorkDir = Pick<LaneFacts, 'role' | 'dir' | 'root' | 'iteration' | 'repo' | 'branch' | 'at' | 'made'>

export function workDirOf(rec: Pick<ConversationRecord, 'lane' | 'worker'>): WorkDir | undefined {
  if (rec.lane) return rec.lane
  const w = rec.worker
  return (
    w && {
      role: 'builder',
      dir: w.dir,
      root: w.root,
      iteration: w.iteration,
      repo: w.repo,
      branch: w.branch,
      made: w.made,
    }
  )
}

/** FNV-1a, 32 bits, as 8 hex digits: a short, stable tag of a GitHub repository for a conversation name. */
function tag8(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}

/** A worker's conversation name: `w-local-<n>-i<i>`, or `w-gh-<tag>-<n>-i<i>` where the tag stands for the
 * repository (a slug can be longer than a name may be, and `+` is not allowed in one); `-<k>` for a respawn in the
 * same iteration, as for lanes. Always a valid conversation name. */
export function workerConvName(
  ref: { tracker: 'local'; number: number } | { tracker: 'gh'; owner: string; repo: string; number: number },
  iteration: number,
  attempt: number,
): string {
  const id = ref.tracker === 'local' ? `local-${ref.number}` : `gh-${tag8(`${ref.owner}/${ref.repo}`)}-${ref.number}`
  return `w-${id}-i${iteration}${attempt ? `-${attempt + 1}` : ''}`
}

const ONLY = 'only a root conversation or an orchestrator lane can'

/** Who may run a worker: the effective launcher (successors followed) must be a root conversation or an
 * orchestrator lane; a worker, builder, critic, verifier or play lane may not. Returns the effective launcher, the
 * worker's starter. */
export function mayRunWorker(
  launcherId: string,
  lookup: (id: string) => WorkerRecord | undefined,
): Decision<{ starter: WorkerRecord }> {
  const eff = effectiveLauncher(launcherId, lookup) as WorkerRecord | undefined
  if (!eff) return refuse('forbidden', `conv ${launcherId} has a broken chain of parent links; it cannot run workers`)
  if (eff.worker) return refuse('forbidden', `refused: a worker cannot run workers; ${ONLY}`)
  const role = eff.lane?.role
  if (role && role !== 'orchestrator') return refuse('forbidden', `refused: a ${role} lane cannot run workers; ${ONLY}`)
  return { ok: true, starter: eff }
}

/** A closed issue is no contract to work on, unless the caller says so. */
export function checkIssueState(ref: string, state: 'open' | 'closed', allowClosed: boolean): Decision<object> {
  if (state === 'closed' && !allowClosed)
    return refuse('conflict', `refused: issue ${ref} is closed; pass --allow-closed to run a worker on it anyway`)
  return { ok: true }
}

/** `<root>/w-<slug>` for iteration 1, `-i<n>` after, as for builders. */
export const workerDirName = (slug: string, iteration: number) =>
  iteration === 1 ? `w-${slug}` : `w-${slug}-i${iteration}`

/** `worker/<slug>` for iteration 1, `-i<n>` after. */
export const workerBranch = (slug: string, iteration: number) =>
  iteration === 1 ? `worker/${slug}` : `worker/${slug}-i${iteration}`

/** An earlier worker of the same issue, as the plan needs it. */
export interface WorkerRow {
  id: string
  createdAt: number
  live: boolean
  /** Its iteration filed a done report: its branch is frozen. */
  doneReported: boolean
  worker: Pick<WorkerFacts, 'dir' | 'branch' | 'iteration'>
}

interface WorkerRequest {
  replace?: boolean
  reuse?: boolean
  branch?: string
  from?: string
}

export interface WorkerPlan {
  iteration: number
  dirName: string
  branch: string
  /** The earlier worker whose directory is reused. */
  reuse?: WorkerRow
  /** The live worker to stop first. */
  replace?: WorkerRow
}

/** One live worker per issue; `--replace` stops it first, `--reuse` continues in the latest earlier worker's
 * directory (keeping its iteration), as for lanes. */
export function planWorker(
  ref: string,
  slug: string,
  earlier: readonly WorkerRow[],
  req: WorkerRequest,
): Decision<WorkerPlan> {
  const rows = [...earlier].sort((a, b) => a.createdAt - b.createdAt)
  const live = rows.find((r) => r.live)
  if (live && !req.replace)
    return refuse(
      'conflict',
      `worker ${ref} i${live.worker.iteration} is live (conv ${live.id}); pass --replace to stop it and run anew`,
    )
  if (!req.reuse) {
    const iteration = nextIteration(rows.map((r) => r.worker))
    return {
      ok: true,
      iteration,
      dirName: workerDirName(slug, iteration),
      branch: req.branch ?? workerBranch(slug, iteration),
      replace: live,
    }
  }
  const reuse = newestBy(rows, (r) => r.createdAt)
  if (!reuse) return refuse('conflict', `refused: no earlier worker of ${ref} to reuse`)
  const moot = (['from', 'branch'] as const).find((o) => req[o] !== undefined)
  if (moot)
    return refuse('usage', `--${moot} does not go with --reuse: the worker continues in ${reuse.worker.dir} as it is`)
  const sameIteration = rows.filter((r) => r.worker.iteration === reuse.worker.iteration)
  if (sameIteration.some((r) => r.doneReported))
    return refuse(
      'conflict',
      `refused: branch ${reuse.worker.branch} of worker ${ref} i${reuse.worker.iteration} is frozen (its worker ` +
        `reported done); run a new iteration`,
    )
  return {
    ok: true,
    iteration: reuse.worker.iteration,
    dirName: reuse.worker.dir,
    branch: reuse.worker.branch ?? workerBranch(slug, reuse.worker.iteration),
    reuse,
    replace: live,
  }
}

/** GitHub refuses a comment longer than this many characters. */
const COMMENT_MAX_CHARS = 65_536

/** The marker that ends every posted report: which conversation's which report it is. */
export const reportMarker = (conv: string, seq: number) => `<!-- svc-report conv-${conv} seq ${seq} -->`

interface PostedReport {
  ref: string
  conv: string
  seq: number
  status: string
  body: string
}

/** The comment a report is posted as: a heading, the body (cut to fit, saying where the whole is), the marker. */
export function reportComment(r: PostedReport, max = COMMENT_MAX_CHARS): string {
  const head = `**Worker report** ${r.status} (conv-${r.conv}, report ${r.seq})\n\n`
  const tail = `\n\n${reportMarker(r.conv, r.seq)}`
  const body = r.body.trimEnd()
  if (head.length + body.length + tail.length <= max) return head + body + tail
  const note = `\n\n[cut: the whole report is in svc's report store under conv-${r.conv}, report ${r.seq}]`
  return head + body.slice(0, Math.max(0, max - head.length - note.length - tail.length)) + note + tail
}

/** Has this report been posted already (a retry after a crash must not post twice)? Only a comment whose last
 * line is the marker counts, so a comment that quotes a marker elsewhere does not stop a post. */
export function alreadyPosted(marker: string, comments: readonly string[]): boolean {
  return comments.some((c) => c.trimEnd().split('\n').at(-1)?.trim() === marker)
}

/** Is this conversation a worker of that issue? A `local:` reference is one project's (the record's), a GitHub one
 * is everyone's. */
export const isWorkerOf = (
  rec: Pick<ConversationRecord, 'worker' | 'project'>,
  issue: string,
  project: string | undefined,
): boolean => rec.worker?.issue === issue && (!issue.startsWith('local:') || rec.project === project)

/** The one message a worker's starter is told when the worker files a report: who, which issue, the status, the
 * report's first line and the command that prints the report. */
export function starterMessage(
  w: { id: string; name: string; issue: string; iteration: number },
  r: { seq: number; status: string; body: string },
): string {
  const first = r.body.trimStart().split('\n')[0].trim()
  const head = first.length > 200 ? `${first.slice(0, 199)}…` : first
  return (
    `Worker ${w.issue} i${w.iteration} (conv ${w.id}, ${w.name}) filed report #${r.seq}: ${r.status}: ${head}` +
    `\nRead it: svc worker wait ${w.name} --after ${r.seq - 1}`
  )
}
