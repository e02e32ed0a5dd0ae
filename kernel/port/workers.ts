import * as v from 'valibot'
import { EFFORTS, HARNESSES } from '../domain/keys.js'
import { MAX_TEXT, key, opt, ref, text } from './fields.js'
import type { WorkerViewSchema } from './outputs.js'

/** The worker verbs of the KernelPort (kernel/port/port.ts): their inputs, and the view of a worker they answer
 * with. */

export const WorkerSchemas = {
  workerRun: v.strictObject({
    issue: ref,
    brief: opt(text(MAX_TEXT)),
    prompt: opt(text(1_000_000)),
    project: opt(text(100)),
    harness: opt(v.picklist(HARNESSES, 'must be one of claude, codex, shell, none')),
    model: opt(text(200)),
    effort: opt(v.picklist(EFFORTS, 'must be one of low, medium, high')),
    from: opt(text(250)),
    branch: opt(text(250)),
    title: opt(text(200)),
    replace: opt(v.boolean()),
    reuse: opt(v.boolean()),
    post: opt(v.boolean()),
    allowClosed: opt(v.boolean()),
    noWait: opt(v.boolean()),
    conversation: opt(ref),
    conversationKey: opt(key),
    cwd: opt(text(4096)),
  }),
  workerWait: v.strictObject({
    worker: opt(ref),
    issue: opt(ref),
    parent: opt(ref),
    project: opt(text(100)),
    cwd: opt(text(4096)),
    after: opt(text(300)),
    timeoutMs: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)),
  }),
  workerList: v.strictObject({ issue: opt(ref), parent: opt(ref), project: opt(text(100)), cwd: opt(text(4096)) }),
  workerGet: v.strictObject({ worker: ref }),
  workerStop: v.strictObject({ worker: ref }),
  workerReap: v.strictObject({ worker: ref, park: opt(v.boolean()), keep: opt(v.boolean()) }),
} as const

/** A worker as `svc worker list|show` and the deck show it (kernel/port/outputs.ts). */
export type WorkerView = v.InferOutput<typeof WorkerViewSchema>
