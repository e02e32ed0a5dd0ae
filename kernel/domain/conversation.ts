import type { Effort, Harness, Role } from './keys.js'

/** The facts the store keeps for one conversation. `lane` and `parent` are written once, at creation. */
export interface LaneFacts {
  run: string
  key: string
  role: Role
  /** Judged builder row of a critic or verifier, written once at launch. */
  for?: { id: string; key: string; iteration: number; sha?: string }
  /** The working directory of the lane, its name under the lanes root (its identity for the iteration count). */
  dir: string
  /** The lanes root (a real path) the directory was made under: reap removes nothing outside it. */
  root: string
  iteration: number
  /** For git-backed lanes: the repository the worktree belongs to, and the branch (builders). */
  repo?: string
  branch?: string
  /** Commit a detached worktree was checked out at. */
  at?: string
  /** For a builder of iteration n >= 2: the critic verdict it answers. */
  answers?: { id: string; verdict?: string; verdictFile?: string }
  /** What identifies the directory the launch made (domain/lane-claim.ts): the launch's id, also written into the
   * worktree's git directory, and for a play directory its device, inode and birth time. Absent on lanes launched
   * before it was recorded. */
  made?: { launch: string; dirId?: string }
}

export interface ConversationRecord {
  id: string
  name: string
  createdAt: number
  /** Conversation that launched or preceded it; absent for a root. Written once. */
  parent?: string
  /** Set on a successor: how it was made from its parent. */
  successor?: 'handoff' | 'fork'
  lane?: LaneFacts
  project?: string
  harness: Harness
  model?: string
  effort?: Effort
  title?: string
  cwd: string
  /** Ended as recorded by the kernel (a stop, a runner found dead). The runner's own end is in state.json. */
  ended?: { at: number; source: string; detail: string }
  archived?: { at: number }
  /** A lane whose directory a reap has removed (or found gone): whatever appears at its path later is not its own. */
  reaped?: { at: number }
}

export type ConversationKind = 'root' | 'lane' | 'successor'

export const conversationKind = (c: Pick<ConversationRecord, 'lane' | 'successor'>): ConversationKind =>
  c.lane ? 'lane' : c.successor ? 'successor' : 'root'

/** Facts that are written once: no update may carry them. */
export const WRITE_ONCE_FIELDS = ['id', 'name', 'createdAt', 'parent', 'successor', 'lane'] as const

/** A conversation a runner drives and that has not ended (nor been archived) as far as its record knows. */
export const isDriven = (c: Pick<ConversationRecord, 'harness' | 'ended' | 'archived'>): boolean => c.harness !== 'none' && !c.ended && !c.archived

/** Whether a conversation's files can still change: it is driven and its runner has not written its end. The
 * watcher watches these, and the reconcile checks them. The runner's state is read only for a driven one: at
 * start the kernel asks this of every conversation, and most have ended. */
export const mayStillChange = (c: Pick<ConversationRecord, 'harness' | 'ended' | 'archived'>, stateOf: () => { ended?: unknown } | undefined): boolean =>
  isDriven(c) && !stateOf()?.ended
