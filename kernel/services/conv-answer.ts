import { SvcError } from '../domain/errors.js'
import { convFiles } from '../home.js'
import { appendLine } from '../io/atomic-file.js'
import type { PortInput, PortOutputs } from '../port.js'
import type { KernelContext } from './context.js'

/** `svc conv answer`: answer the request a harness waits on (a permission, a question, a plan approval). The answer is
 * appended to the conversation's answers.jsonl, which its runner reads and turns into the harness's own reply. */
export async function convAnswer(ctx: KernelContext, input: PortInput<'convAnswer'>): Promise<PortOutputs['convAnswer']> {
  const rec = ctx.resolve(input.conv)
  ctx.facts.invalidate(rec.name)
  const view = ctx.view(rec)
  const pending = ctx.facts.get(rec.name).state?.pending
  const who = `conv ${rec.id} (${rec.name})`
  if (view.activity !== 'needs-you') throw new SvcError('conflict', `${who} is ${view.activity}; it waits on no answer`)
  if (!pending)
    throw new SvcError('conflict', `${who} marked itself needs-you; it waits on no request the service can answer`, `svc tell ${rec.id} "<text>"`)
  if (pending.kind === 'question' && input.decision === 'allow' && input.message === undefined)
    throw new SvcError('usage', `${who} asks a question: answer it with allow --message <answer>`)
  if (pending.kind !== 'question' && input.decision === 'allow' && input.message !== undefined)
    throw new SvcError('usage', `--message goes with deny (the reason) or answers a question; ${who} asks for a ${pending.kind}`)
  await appendLine(convFiles(ctx.home, rec.name).answers, JSON.stringify({ at: ctx.io.clock.now(), id: pending.id, decision: input.decision, ...(input.message !== undefined ? { message: input.message } : {}) }))
  return { conv: view, answered: { id: pending.id, kind: pending.kind, tool: pending.tool, decision: input.decision } }
}
