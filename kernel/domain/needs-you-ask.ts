import type { Activity } from './activity.js'
import { allow, refuse, type Decision } from './refusal.js'

/** What a conversation waiting on a person asks, from the request its harness waits on (the runner records it in
 * state.json as `pending`): a question with its options, a permission for a tool with its input, a plan to approve;
 * or, when it marked itself needs-you, that a message is the answer. */
export type NeedsYouAsk =
  | {
      kind: 'question'
      tool?: string
      questions: { question: string; header?: string; options: { label: string; description?: string }[] }[]
    }
  | { kind: 'permission'; tool: string; input: string }
  | { kind: 'plan'; tool?: string; plan: string }
  | { kind: 'mark'; reason?: string }

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}

/** A tool's input as one readable text: a command, a path, else its JSON. */
function inputText(input: Record<string, unknown>): string {
  const one = str(input.command) ?? str(input.file_path) ?? str(input.path) ?? str(input.url)
  if (one !== undefined) return one
  return Object.keys(input).length ? JSON.stringify(input) : ''
}

export function needsYouAsk(
  pending: { kind: string; tool?: string; input?: unknown } | undefined,
  reason?: string,
): NeedsYouAsk {
  if (!pending) return { kind: 'mark', ...(reason ? { reason } : {}) }
  const input = rec(pending.input)
  const tool = pending.tool ? { tool: pending.tool } : {}
  if (pending.kind === 'question' && Array.isArray(input.questions)) {
    const questions = input.questions.map((q) => {
      const r = rec(q)
      const options = Array.isArray(r.options)
        ? r.options.map((o) =>
            typeof o === 'string'
              ? { label: o }
              : {
                  label: str(rec(o).label) ?? JSON.stringify(o),
                  ...(str(rec(o).description) ? { description: str(rec(o).description) } : {}),
                },
          )
        : []
      return {
        question: str(r.question) ?? JSON.stringify(q),
        ...(str(r.header) ? { header: str(r.header) } : {}),
        options,
      }
    })
    return { kind: 'question', ...tool, questions }
  }
  if (pending.kind === 'plan') return { kind: 'plan', ...tool, plan: str(input.plan) ?? inputText(input) }
  return { kind: 'permission', tool: pending.tool ?? 'a tool', input: inputText(input) }
}

/** The ask as one line, for a notification's body and the needs-you panel. */
export function askText(a: NeedsYouAsk): string {
  if (a.kind === 'mark') return `it marked itself needs-you${a.reason ? ` (${a.reason})` : ''}: answer with a message`
  if (a.kind === 'question')
    return `question${a.tool ? ` for ${a.tool}` : ''}: ${a.questions.map((q) => q.question).join(' / ')}`
  if (a.kind === 'plan') return `plan${a.tool ? ` for ${a.tool}` : ''}: ${a.plan}`
  return `permission for ${a.tool}${a.input ? `: ${a.input}` : ''}`
}

/** The request a harness waits on, as its runner records it (state.json's `pending`). */
export interface PendingRequest {
  id: string
  kind: string
  tool?: string
}

/** README "Conversations" (`conv answer`): an answer goes to a conversation that waits on a request the service can
 * answer, in the form the request takes (a question is answered with allow --message; --message is deny's reason). */
export function answerFits<P extends PendingRequest>(
  conv: { id: string; name: string },
  activity: Activity,
  pending: P | undefined,
  answer: { decision: 'allow' | 'deny'; message?: string },
): Decision<{ pending: P }> {
  const who = `conv ${conv.id} (${conv.name})`
  if (activity !== 'needs-you') return refuse('conflict', `${who} is ${activity}; it waits on no answer`)
  if (!pending)
    return refuse(
      'conflict',
      `${who} marked itself needs-you; it waits on no request the service can answer`,
      `svc tell ${conv.id} "<text>"`,
    )
  if (pending.kind === 'question' && answer.decision === 'allow' && answer.message === undefined)
    return refuse('usage', `${who} asks a question: answer it with allow --message <answer>`)
  if (pending.kind !== 'question' && answer.decision === 'allow' && answer.message !== undefined)
    return refuse(
      'usage',
      `--message goes with deny (the reason) or answers a question; ${who} asks for a ${pending.kind}`,
    )
  return allow({ pending })
}
