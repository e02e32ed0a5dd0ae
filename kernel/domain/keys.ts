/** Names and value sets fixed by SPEC.md (sections 1, 2, 8). */
import { shortLine } from './errors.js'
import { ALLOWED, allow, refuse, type Decision } from './refusal.js'

export const RUN_KEY = /^[a-z0-9][a-z0-9-]{0,31}$/
export const LANE_KEY = /^[a-z0-9][a-z0-9._-]{0,39}$/
/** Conversation names: what `conv-<name>` directories are made of. No slash, no leading dot, bounded. */
export const CONV_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/
export const CONV_ID = /^[1-9][0-9]{0,11}$/

export const ROLES = ['builder', 'critic', 'verifier', 'play', 'orchestrator'] as const
export type Role = (typeof ROLES)[number]
export const EFFORTS = ['low', 'medium', 'high'] as const
export type Effort = (typeof EFFORTS)[number]
export const VERDICTS = ['WOWED', 'IMPRESSED', 'NOT_YET', 'PASS', 'DEFECTS'] as const
export type Verdict = (typeof VERDICTS)[number]
export const REPORT_STATUSES = ['done', 'blocked', 'failed'] as const
export type ReportStatus = (typeof REPORT_STATUSES)[number]
export const BLOCKED_OPENERS = ['RULING', 'SPEND', 'ONE-WAY', 'BLOCKED'] as const
export const HARNESSES = ['claude', 'codex', 'shell', 'none'] as const
export type Harness = (typeof HARNESSES)[number]
export const PHASES = ['working', 'idle', 'needs-you'] as const
export type Phase = (typeof PHASES)[number]
export const NEEDS_YOU_REASONS = ['question', 'permission', 'plan'] as const
export type NeedsYouReason = (typeof NEEDS_YOU_REASONS)[number]

export const isRole = (s: unknown): s is Role => typeof s === 'string' && (ROLES as readonly string[]).includes(s)
export const isRunKey = (s: string) => RUN_KEY.test(s)
export const isLaneKey = (s: string) => LANE_KEY.test(s)
/** The refusals of a run or lane key that does not match its pattern. */
export const invalidRunKey = (s: string) => `invalid run key '${s}': it must match ${RUN_KEY.source}`
export const invalidLaneKey = (s: string) => `invalid lane key '${s}': it must match ${LANE_KEY.source}`

/** SPEC.md 8: a run or lane key given to pick lanes by (list, show, wait --run) is one a lane could have. */
export function keysFit(k: { run?: string; key?: string }): Decision {
  if (k.run !== undefined && !isRunKey(k.run)) return refuse('usage', invalidRunKey(k.run))
  if (k.key !== undefined && !isLaneKey(k.key)) return refuse('usage', invalidLaneKey(k.key))
  return ALLOWED
}

type ConvRef = { by: 'id'; id: string } | { by: 'name'; names: string[] }

/** A conversation is addressed by id, by name, or by `conv-<name>` (SPEC.md 2). The names to try are listed in
 * order: `conv-x` means the conversation named `x` first, then one literally named `conv-x`. */
export function parseConvRef(ref: string): ConvRef | undefined {
  if (CONV_ID.test(ref)) return { by: 'id', id: ref }
  const names: string[] = []
  if (ref.startsWith('conv-') && CONV_NAME.test(ref.slice(5))) names.push(ref.slice(5))
  if (CONV_NAME.test(ref)) names.push(ref)
  return names.length ? { by: 'name', names } : undefined
}

/** SPEC.md 2: a conversation is addressed by id, name or conv-<name>; anything else names none. */
export const convRefParsed = (ref: string): Decision<{ parsed: ConvRef }> => {
  const parsed = parseConvRef(ref)
  return parsed
    ? allow({ parsed })
    : refuse('usage', `'${shortLine(ref)}' is not a conversation id, name or conv-<name>`)
}

/** A critic or a verifier: a lane that judges a builder and files one verdict. */
export const isJudgeRole = (role: string | undefined): boolean => role === 'critic' || role === 'verifier'

/** SPEC.md 2, working directories by role: every role but play works in a git worktree. */
export const isGitBacked = (role: Role) => role !== 'play'
