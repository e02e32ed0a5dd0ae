import { answerFits } from '../domain/needs-you-ask.js'
import { convFiles } from '../io/home.js'
import type { PortInput, PortOutputs } from '../port/port.js'
import type { KernelContext } from './context.js'
import { decided } from './decided.js'

/** `svc conv answer`: answer the request a harness waits on (a permission, a question, a plan approval). The answer is
 * appended to the conversation's answers.jsonl, which its runner reads and turns into the harness's own reply. */
export async function convAnswer(
  ctx: KernelContext,
  input: PortInput<'convAnswer'>,
): Promise<PortOutputs['convAnswer']> {
  const rec = ctx.resolve(input.conv)
  await ctx.checkCommand(rec, 'svc conv answer')
  ctx.facts.invalidate(rec.name)
  const view = ctx.view(rec)
  const { pending } = decided(answerFits(rec, view.activity, ctx.facts.get(rec.name).state?.pending, input))
  await ctx.io.writes.appendLine(
    convFiles(ctx.home, rec.name).answers,
    JSON.stringify({
      at: ctx.io.clock.now(),
      id: pending.id,
      decision: input.decision,
      ...(input.message !== undefined ? { message: input.message } : {}),
    }),
  )
  return { conv: view, answered: { id: pending.id, kind: pending.kind, tool: pending.tool, decision: input.decision } }
}
