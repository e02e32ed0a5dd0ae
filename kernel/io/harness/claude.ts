import type { HarnessAdapter, Reduction } from './types.js'
import type { NeedsYouReason } from '../../domain/keys.js'

const userLine = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } }) + '\n'

const reasonFor = (tool: string | undefined): NeedsYouReason =>
  tool === 'AskUserQuestion' ? 'question' : tool === 'ExitPlanMode' ? 'plan' : 'permission'

/** Harness `claude`: the Claude Code CLI in stream-json mode. Working from a user message to the `result` event,
 * idle after it while the process lives, needs-you on a `can_use_tool` control request. */
export const claudeAdapter: HarnessAdapter = {
  name: 'claude',
  buildLaunch(spec) {
    const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose']
    if (spec.model) args.push('--model', spec.model)
    if (spec.effort) args.push('--effort', spec.effort)
    if (spec.resume) args.push('--resume', spec.resume)
    else if (spec.session) args.push('--session-id', spec.session)
    args.push('--permission-prompt-tool', 'stdio')
    return { command: 'claude', args, stdin: 'keep-open', initialInput: spec.firstMessage ? userLine(spec.firstMessage) : undefined }
  },
  started(now) {
    return { state: { phase: { value: 'working', source: 'stream: first user message', at: now } } }
  },
  stdoutLine(line, state, now): Reduction {
    let ev: Record<string, any>
    try {
      ev = JSON.parse(line)
    } catch {
      return { transcript: [{ kind: 'stdout', text: line }] }
    }
    switch (ev.type) {
      case 'system':
        return ev.subtype === 'init'
          ? { state: { model: ev.model ?? state.model, session: ev.session_id ?? state.session }, transcript: [{ kind: 'system', text: `session ${ev.session_id ?? '?'} model ${ev.model ?? '?'}` }] }
          : {}
      case 'assistant': {
        const parts = (ev.message?.content ?? []) as Array<Record<string, any>>
        return {
          transcript: parts.map((p) =>
            p.type === 'text' ? { kind: 'assistant' as const, text: String(p.text) } : { kind: 'tool' as const, text: `${p.name ?? p.type} ${JSON.stringify(p.input ?? {})}` },
          ),
        }
      }
      case 'result':
        return {
          state: {
            phase: { value: 'idle', source: 'stream: result', at: now },
            cost: typeof ev.total_cost_usd === 'number' ? { usd: ev.total_cost_usd, estimated: false } : state.cost,
            pending: undefined,
          },
          transcript: [{ kind: 'system', text: `result: ${ev.subtype ?? ''}` }],
        }
      case 'control_request': {
        if (ev.request?.subtype !== 'can_use_tool') return {}
        const kind = reasonFor(ev.request.tool_name)
        return {
          state: {
            phase: { value: 'needs-you', reason: kind, source: 'stream: can_use_tool', at: now, detail: ev.request.tool_name },
            pending: { id: String(ev.request_id), kind, tool: ev.request.tool_name, input: ev.request.input, at: now },
          },
          transcript: [{ kind: 'tool', text: `needs you (${kind}): ${ev.request.tool_name}` }],
        }
      }
      default:
        return {}
    }
  },
  deliver(text, _state, now) {
    return {
      stdin: userLine(text),
      state: { phase: { value: 'working', source: 'stream: user message', at: now } },
      transcript: [{ kind: 'user', text }],
    }
  },
}
