import * as v from 'valibot'
import { hasEnded, type Activity } from './activity.js'
import { shortLine } from './errors.js'
import { CONV_ID, CONV_NAME, EFFORTS, HARNESSES, LANE_KEY, ROLES, RUN_KEY, type Harness, type Phase } from './keys.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'

const num = v.pipe(v.number(), v.finite())
const opt = v.optional

/** The facts the store keeps for one conversation's lane. `lane` and `parent` are written once, at creation. */
export const LaneFactsSchema = v.object({
  run: v.pipe(v.string(), v.regex(RUN_KEY, 'a run key')),
  key: v.pipe(v.string(), v.regex(LANE_KEY, 'a lane key')),
  role: v.picklist(ROLES),
  /** Judged builder row of a critic or verifier, written once at launch. */
  for: opt(v.object({ id: v.string(), key: v.string(), iteration: num, sha: opt(v.string()) })),
  /** The working directory of the lane, its name under the lanes root (its identity for the iteration count). */
  dir: v.string(),
  /** The lanes root (a real path) the directory was made under: reap removes nothing outside it. */
  root: v.string(),
  iteration: num,
  /** For git-backed lanes: the repository the worktree belongs to, and the branch (builders). */
  repo: opt(v.string()),
  branch: opt(v.string()),
  /** Commit a detached worktree was checked out at. */
  at: opt(v.string()),
  /** For a builder of iteration n >= 2: the critic verdict it answers. */
  answers: opt(v.object({ id: v.string(), verdict: opt(v.string()), verdictFile: opt(v.string()) })),
  /** What identifies the directory the launch made (domain/lane-claim.ts): the launch's id, also written into the
   * worktree's git directory, and for a play directory its device, inode and birth time. Absent on lanes launched
   * before it was recorded. */
  made: opt(v.object({ launch: v.string(), dirId: opt(v.string()) })),
  /** The host of hosts.yaml the lane runs on (issue 27); absent: at home. Its directory is then on that host. */
  host: opt(v.string()),
})
export type LaneFacts = v.InferOutput<typeof LaneFactsSchema>

/** The facts of a worker (`svc worker run`), written once at its run: the issue it belongs to, the effective
 * launcher it reports to, and its directory as a lane's (a worktree on a branch of its own under the lanes root). */
export const WorkerFactsSchema = v.object({
  /** The issue reference, as formatIssueRef prints it. */
  issue: v.string(),
  /** The effective launcher that ran it: the conversation told of each report. */
  starter: v.string(),
  dir: v.string(),
  root: v.string(),
  iteration: num,
  repo: opt(v.string()),
  branch: opt(v.string()),
  made: opt(v.object({ launch: v.string(), dirId: opt(v.string()) })),
  /** Each report is posted to the issue (`--post`). */
  post: opt(v.boolean()),
  /** The issue's web address, when it has one. */
  url: opt(v.string()),
})
export type WorkerFacts = v.InferOutput<typeof WorkerFactsSchema>

/** A conversation's record (record.json), as every reader checks it: an id that is not a conversation id would
 * make the next id NaN, a name that is not its directory's would be another's record. */
export const ConversationRecordSchema = v.object({
  id: v.pipe(v.string(), v.regex(CONV_ID, 'a conversation id')),
  name: v.pipe(v.string(), v.regex(CONV_NAME, 'a conversation name')),
  createdAt: num,
  /** Conversation that launched or preceded it; absent for a root. Written once. */
  parent: opt(v.string()),
  /** Set on a successor: how it was made from its parent. */
  successor: opt(v.picklist(['handoff', 'fork'])),
  lane: opt(LaneFactsSchema),
  worker: opt(WorkerFactsSchema),
  project: opt(v.string()),
  harness: v.picklist(HARNESSES),
  model: opt(v.string()),
  effort: opt(v.picklist(EFFORTS)),
  title: opt(v.string()),
  cwd: v.string(),
  /** Ended as recorded by the kernel (a stop, a runner found dead). The runner's own end is in state.json. */
  ended: opt(v.object({ at: num, source: v.string(), detail: v.string() })),
  archived: opt(v.object({ at: num })),
  /** The hash of the key its harness was given (every conversation the kernel drives has one): only a request
   * with that key acts as it. Written once. */
  keyHash: opt(v.string()),
  /** A lane whose directory a reap has removed (or found gone): whatever appears at its path later is not its own. */
  reaped: opt(v.object({ at: num })),
})
export type ConversationRecord = v.InferOutput<typeof ConversationRecordSchema>

type ConversationKind = 'root' | 'lane' | 'worker' | 'successor'

export const conversationKind = (
  c: Pick<ConversationRecord, 'lane' | 'successor'> & { worker?: unknown },
): ConversationKind => (c.lane ? 'lane' : c.worker ? 'worker' : c.successor ? 'successor' : 'root')

/** Facts that are written once: no update may carry them. */
export const WRITE_ONCE_FIELDS = [
  'id',
  'name',
  'createdAt',
  'parent',
  'successor',
  'lane',
  'worker',
  'keyHash',
] as const

/** A conversation a runner drives and that has not ended (nor been archived) as far as its record knows. */
export const isDriven = (c: Pick<ConversationRecord, 'harness' | 'ended' | 'archived'>): boolean =>
  c.harness !== 'none' && !c.ended && !c.archived

/** Whether processes of a conversation may still run here: it is driven, or its runner was found gone without
 * having written its end (killed), and what its lane started may run on in the runner's group or session. */
export const mayHoldProcesses = (c: Pick<ConversationRecord, 'harness' | 'ended' | 'archived'>): boolean =>
  isDriven(c) || (c.harness !== 'none' && !c.archived && c.ended?.source === 'reconcile')

/** Whether a conversation's files can still change: it is driven and its runner has not written its end. The
 * watcher watches these, and the reconcile checks them. The runner's state is read only for a driven one: at
 * start the kernel asks this of every conversation, and most have ended. */
export const mayStillChange = (
  c: Pick<ConversationRecord, 'harness' | 'ended' | 'archived'>,
  stateOf: () => { ended?: unknown } | undefined,
): boolean => isDriven(c) && !stateOf()?.ended

/** SPEC.md 5: the calling conversation is $SERVICE_CONVERSATION; a verb that needs one says how to give it (`fix`). */
export const callerSet = (ref: string | undefined, fix: string): Decision<{ ref: string }> =>
  ref ? allow({ ref }) : refuse('usage', `SERVICE_CONVERSATION is not set: ${fix}`)

/** SPEC.md 2: a reference names a conversation only if one has that id or name (`rec`, looked up). */
export const conversationFound = <R extends object>(ref: string, rec: R | undefined): Decision<{ rec: R }> =>
  rec ? allow({ rec }) : refuse('not_found', `no conversation ${ref}`, 'svc conv list shows the conversations')

/** README "Conversations": a name given to `conv new` is a conversation name. */
export const convNameFits = (name: string | undefined): Decision =>
  name === undefined || CONV_NAME.test(name)
    ? ALLOWED
    : refuse(
        'usage',
        `invalid name '${shortLine(name)}': use lower-case letters, digits, '.', '_' or '-', starting with a letter ` +
          `or digit`,
      )

/** README "Conversations": the shell harness runs a script, so it is given one (a prompt, or a lane's brief). */
export const shellHasScript = (harness: Harness, firstMessage: string | undefined): Decision =>
  harness === 'shell' && !firstMessage
    ? refuse('usage', 'the shell harness runs a script: give it --prompt (or a brief)')
    : ALLOWED

/** README "Conversations": `conv new` runs in --cwd, else in its --project's checkout. */
export const workingDirGiven = (cwd: string | undefined): Decision<{ cwd: string }> =>
  cwd ? allow({ cwd }) : refuse('usage', 'no working directory: pass --cwd or --project')

/** What is at a working directory's path, as gathered ('relative': not looked at, the path is not absolute). */
export type DirFound = 'directory' | 'other' | 'missing' | 'relative'

/** README "Conversations": a conversation's working directory is an absolute path to an existing directory. */
export function workingDirFits(dir: string, found: DirFound): Decision {
  const what = `working directory ${shortLine(dir)}`
  if (found === 'relative') return refuse('usage', `${what} is not an absolute path`)
  if (found === 'missing') return refuse('usage', `${what} does not exist`)
  if (found === 'other') return refuse('usage', `${what} is not a directory`)
  return ALLOWED
}

/** README "Conversations": only an ended conversation is archived (`activity` as derived now). */
export const mayArchive = (rec: Pick<ConversationRecord, 'id' | 'name'>, activity: Activity): Decision =>
  hasEnded(activity)
    ? ALLOWED
    : refuse('conflict', `conv ${rec.id} (${rec.name}) is ${activity}; stop it first`, `svc conv stop ${rec.id}`)

/** README "Conversations": `conv mark` takes a reason only with needs-you. */
export const markReasonFits = (phase: Phase, reason: string | undefined): Decision =>
  reason && phase !== 'needs-you' ? refuse('usage', '--reason goes only with needs-you') : ALLOWED

/** SPEC.md 4.1 start (and worker run): the brief is exactly one of --brief <file> or --prompt <text>, and not empty. */
export function briefGiven(input: { brief?: string; prompt?: string }): Decision<{ brief: string }> {
  if ((input.brief === undefined) === (input.prompt === undefined))
    return refuse('usage', 'give exactly one of --brief <file> or --prompt <text>')
  const brief = input.brief ?? input.prompt!
  return brief.trim() ? allow({ brief }) : refuse('usage', 'the brief is empty')
}
