import * as v from 'valibot'
import { ACTIVITIES, EvidenceSchema } from './activity.js'
import { NEEDS_YOU_REASONS } from './keys.js'

const opt = v.optional

/** What a conversation has cost so far; `estimated` when it was priced from its tokens, `basis` saying how. */
export const CostSchema = v.object({ usd: v.number(), estimated: v.boolean(), basis: opt(v.string()) })

/** What a lane's or a worker's view says of its activity at this read. */
export const ActivityFields = {
  archived: v.boolean(),
  /** SPEC.md section 3, computed at this read; `archived` conversations read `stopped`. */
  activity: v.picklist(ACTIVITIES),
  /** For needs-you: question, permission or plan. */
  reason: opt(v.picklist(NEEDS_YOU_REASONS)),
  /** Where the activity came from, and when. */
  evidence: EvidenceSchema,
  /** Idle because its harness's turn ended with nothing pending and no report filed in it (`idle (no report)`). */
  noReport: opt(v.literal(true)),
}

/** The view shown: a lane as the API answers it, and the list, show and the deck print it. The kernel's answers are
 * checked against it in the tests (kernel/port/outputs.ts). */
export const LaneViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  parent: opt(v.string()),
  run: v.string(),
  key: v.string(),
  role: v.string(),
  iteration: v.number(),
  cwd: v.string(),
  /** The host the lane runs on (issue 27); absent: here. */
  host: opt(v.string()),
  harness: v.string(),
  model: opt(v.string()),
  effort: opt(v.string()),
  cost: opt(CostSchema),
  createdAt: v.number(),
  ...ActivityFields,
  /** Present when the lane failed (domain/lane-failure): it ended with no report after a spawn error, an exit code
   * other than 0, a signal or a vanished runner; the evidence says which. Its activity still reads per SPEC.md 3. */
  failed: opt(EvidenceSchema),
  for: opt(v.object({ id: v.string(), key: v.string(), iteration: v.number(), sha: opt(v.string()) })),
  report: opt(v.object({ seq: v.number(), status: v.string(), at: v.number() })),
  verdict: opt(
    v.object({
      value: v.string(),
      defects: v.number(),
      by: v.string(),
      file: opt(v.string()),
      judged: opt(v.string()),
      stale: v.boolean(),
    }),
  ),
  branch: opt(v.string()),
  git: opt(
    v.object({
      branch: opt(v.string()),
      head: opt(v.string()),
      upstream: opt(v.string()),
      ahead: opt(v.number()),
      behind: opt(v.number()),
      dirty: v.boolean(),
      asOf: v.number(),
    }),
  ),
})
export type LaneView = v.InferOutput<typeof LaneViewSchema>
