import type { ConversationRecord, LaneFacts } from './conversation.js'
import { hasDoneReport, isLane, type LaneRecord } from './lane.js'
import { BLOCKED_OPENERS, VERDICTS, isJudgeRole, type ReportStatus, type Role, type Verdict } from './keys.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'
import type { Report } from './report.js'

export interface ReportRequest {
  status: ReportStatus
  body: string
  verdict?: string
  defects?: number
  /** The verdict file's text, if one was given. */
  verdictText?: string
  allowUnpushed?: boolean
}

export interface TreeFacts {
  dirty: boolean
  head?: string
  branch?: string
  upstream?: string
  /** The upstream is configured, but origin has no such branch yet. */
  upstreamGone?: boolean
  ahead?: number
}

/** SPEC.md 2 Verdict file and 4.1 report `--defects`: the verdict file is JSON holding an array `defects`; its length
 * is the default defect count. */
export function parseVerdictFile(text: string, path: string): Decision<{ defects: unknown[] }> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    return refuse('usage', `verdict file ${path} is not JSON: ${(e as Error).message}`)
  }
  const defects = (doc as { defects?: unknown })?.defects
  if (!doc || typeof doc !== 'object' || !Array.isArray(defects))
    return refuse('usage', `verdict file ${path} has no array named defects`)
  return allow({ defects })
}

/** SPEC.md 4.1 report rule 6: the caller must be a lane; outside one, a successor of a lane included, the report
 * fails with `not inside a lane`. `caller` is the conversation $SERVICE_CONVERSATION names, if it names one. */
export function reportingLane(caller: ConversationRecord | undefined): Decision<{ rec: LaneRecord }> {
  return caller && isLane(caller) ? allow({ rec: caller }) : refuse('not_inside_lane', 'not inside a lane')
}

/** SPEC.md 4.1 report rule 6, for `svc worker report`: the caller must be a worker (a successor of one is not one). */
export function reportingWorker(caller: ConversationRecord | undefined): Decision<{ rec: ConversationRecord }> {
  return caller?.worker ? allow({ rec: caller }) : refuse('not_inside_lane', 'not inside a worker')
}

/** Who files a report, as the rules need it: a lane, or a worker (whose gates are a builder's, `key` its issue). */
export type Reporting = Pick<LaneFacts, 'key' | 'iteration' | 'branch'> & { role: Role | 'worker' }

/** A builder and a worker each work on a branch of their own, frozen by their done report. */
const ownsBranch = (lane: Pick<Reporting, 'role'>) => lane.role === 'builder' || lane.role === 'worker'

/** SPEC.md 4.1 report `--verdict`: one of the five verdict values. */
const isVerdict = (v: string): v is Verdict => (VERDICTS as readonly string[]).includes(v)

/** SPEC.md 4.1 report rule 3: the first word of a blocked report. */
export const blockedOpener = (body: string) =>
  BLOCKED_OPENERS.find((w) => new RegExp(`^${w}(?![A-Za-z0-9_-])`).test(body.trimStart()))

/** SPEC.md 4.1 report rule 5 (its refusals of `--verdict`): a known value, from a critic or verifier, on a done
 * report. */
export function verdictAllowed(
  lane: Pick<Reporting, 'role'>,
  req: Pick<ReportRequest, 'verdict' | 'status'>,
): Decision {
  if (req.verdict === undefined) return ALLOWED
  if (!isVerdict(req.verdict))
    return refuse('usage', `--verdict must be one of ${VERDICTS.join(', ')}, not '${req.verdict}'`)
  if (!isJudgeRole(lane.role))
    return refuse('forbidden', `refused: a ${lane.role} files no verdict; --verdict is for critic and verifier lanes`)
  if (req.status !== 'done')
    return refuse('usage', `refused: a verdict goes with a done report, not a ${req.status} one`)
  return ALLOWED
}

/** SPEC.md 4.1 report options: `--defects` and `--verdict-file` go with `--verdict`; a defect count is whole. */
function verdictOptions(req: Pick<ReportRequest, 'verdict' | 'defects' | 'verdictText'>): Decision {
  if (req.verdict === undefined && (req.defects !== undefined || req.verdictText !== undefined))
    return refuse('usage', '--defects and --verdict-file go with --verdict')
  if (req.defects !== undefined && (!Number.isInteger(req.defects) || req.defects < 0))
    return refuse('usage', '--defects must be a whole number, 0 or more')
  return ALLOWED
}

/** SPEC.md 4.1 report rule 3: a blocked report begins with one of the blocked openers. */
export function blockedBeginsRight(req: Pick<ReportRequest, 'status' | 'body'>): Decision {
  if (req.status !== 'blocked' || blockedOpener(req.body)) return ALLOWED
  return refuse('usage', `refused: a blocked report must begin with one of the words ${BLOCKED_OPENERS.join(', ')}`)
}

/** SPEC.md 4.1 report rule 5 and section 8: a critic or verifier files exactly one done report, with its verdict. */
export function oneVerdict(
  lane: Pick<Reporting, 'role'>,
  req: Pick<ReportRequest, 'verdict' | 'status'>,
  earlier: Report[],
): Decision {
  if (!isJudgeRole(lane.role) || req.status !== 'done') return ALLOWED
  if (hasDoneReport(earlier))
    return refuse('conflict', `refused: this ${lane.role} has already filed its done report with its verdict`)
  if (req.verdict === undefined)
    return refuse(
      'usage',
      `refused: a ${lane.role}'s done report needs its verdict: --verdict ` +
        `${lane.role === 'critic' ? 'WOWED|IMPRESSED|NOT_YET' : 'PASS|DEFECTS'}`,
    )
  return ALLOWED
}

/** SPEC.md 3 related rule 2: a branch whose builder (or worker) reported done is frozen; that iteration files nothing
 * more. `earlier` holds the reports of every lane of the iteration (a reuse respawn shares it). */
export function branchNotFrozen(lane: Reporting, earlier: Report[]): Decision {
  const done = ownsBranch(lane) ? earlier.find((r) => r.status === 'done') : undefined
  if (!done) return ALLOWED
  return refuse(
    'conflict',
    `refused: branch ${done.branch ?? lane.branch} is frozen: ${lane.role} ${lane.key} i${lane.iteration} reported ` +
      `done (report #${done.seq}); start a new iteration`,
  )
}

/** SPEC.md 4.1 report rule 2: a builder reports done only from a clean tree whose branch has an upstream holding
 * every commit; `--allow-unpushed` waives the upstream check, never the clean tree. */
export function builderDoneClean(
  lane: Pick<Reporting, 'role'>,
  req: Pick<ReportRequest, 'status' | 'allowUnpushed'>,
  tree: TreeFacts | undefined,
): Decision {
  if (!ownsBranch(lane) || req.status !== 'done' || !tree) return ALLOWED
  if (tree.dirty)
    return refuse(
      'conflict',
      `refused: a ${lane.role} reports done only from a clean tree; commit or remove the changes (git status shows ` +
        `them)`,
    )
  if (req.allowUnpushed) return ALLOWED
  if (!tree.upstream)
    return refuse(
      'conflict',
      `refused: branch ${tree.branch ?? '(detached)'} has no upstream; push it with git push -u origin HEAD`,
    )
  if (tree.upstreamGone)
    return refuse(
      'conflict',
      `refused: branch ${tree.branch} is not on ${tree.upstream} yet; push it with git push -u origin HEAD`,
    )
  if ((tree.ahead ?? 0) > 0)
    return refuse(
      'conflict',
      `refused: ${tree.ahead} commit(s) on ${tree.branch} are not on ${tree.upstream}; push them first`,
    )
  return ALLOWED
}

/** SPEC.md 4.1 report rules 2-5 in order, and the frozen branch. `earlier` holds the reports of every lane of the
 * same builder iteration or, for a critic, of this lane. Returns the verdict and defect count to record. */
export function checkReport(
  lane: Reporting,
  req: ReportRequest,
  earlier: Report[],
  tree: TreeFacts | undefined,
  verdictPath?: string,
): Decision<{ verdict?: Verdict; defects?: number }> {
  if (req.body.trim() === '') return refuse('usage', 'the report is empty')
  const checks = [
    () => verdictAllowed(lane, req),
    () => verdictOptions(req),
    () => blockedBeginsRight(req),
    () => oneVerdict(lane, req, earlier),
    () => branchNotFrozen(lane, earlier),
    () => builderDoneClean(lane, req, tree),
  ]
  for (const check of checks) {
    const d = check()
    if (!d.ok) return d
  }
  if (req.verdict === undefined) return allow({})
  const file =
    req.verdictText === undefined ? undefined : parseVerdictFile(req.verdictText, verdictPath ?? 'verdict file')
  if (file && !file.ok) return file
  return allow({ verdict: req.verdict as Verdict, defects: req.defects ?? file?.defects.length ?? 0 })
}

/** SPEC.md 4.1 wait and report exit codes 0 and 4: 0 for done, 4 for blocked or failed. */
export const reportExitCode = (status: ReportStatus) => (status === 'done' ? 0 : 4)
