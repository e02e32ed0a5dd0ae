import type { NeedsYouReason } from '../../domain/keys.js'
import {
  claudeResultError,
  claudeRetryText,
  isFatalClaudeError,
  isRetrying,
  firstWork,
  nothingRan,
  retryingPhase,
} from '../../domain/harness-signals.js'
import { claudePermissionArgs } from '../../domain/permissions.js'
import type { RunnerState } from '../../domain/runner-state.js'
import { busy, endOfTurn, failureText, hold, joinQueued, jsonEvent, withdrawn } from './common.js'
import type { Answer, HarnessAdapter, Reduction, TranscriptLine } from './types.js'

const jsonLine = (value: unknown) => JSON.stringify(value) + '\n'
export const userLine = (text: string) => jsonLine({ type: 'user', message: { role: 'user', content: text } })

const reasonFor = (tool: string | undefined): NeedsYouReason =>
  tool === 'AskUserQuestion' ? 'question' : tool === 'ExitPlanMode' ? 'plan' : 'permission'

const DENIED: Record<NeedsYouReason, string> = {
  permission: 'The user denied this tool use.',
  question: 'The user declined to answer.',
  plan: 'The user rejected the plan.',
}

/** The `response` of a control_response to `can_use_tool`: allow with the (answered) input, or deny with a reason.
 * A question is answered by adding `answers` (question text → answer) to its input. */
export function permissionResponse(pending: NonNullable<RunnerState['pending']>, a: Answer): Record<string, unknown> {
  if (a.decision === 'deny') return { behavior: 'deny', message: a.message ?? DENIED[pending.kind] }
  const input = (pending.input ?? {}) as Record<string, unknown>
  if (pending.kind !== 'question' || a.message === undefined) return { behavior: 'allow', updatedInput: input }
  const questions = Array.isArray(input.questions) ? (input.questions as Array<{ question?: unknown }>) : []
  const answers = Object.fromEntries(questions.map((q) => [String(q.question ?? ''), a.message]))
  return { behavior: 'allow', updatedInput: { ...input, answers } }
}

const truncate = (s: string, n = 500) => (s.length > n ? s.slice(0, n - 3) + '...' : s)

function assistantLines(content: Array<Record<string, any>>): TranscriptLine[] {
  const out: TranscriptLine[] = []
  for (const p of content) {
    if (p.type === 'text') out.push({ kind: 'assistant', text: String(p.text) })
    else if (p.type === 'tool_use') out.push({ kind: 'tool', text: `${p.name} ${JSON.stringify(p.input ?? {})}` })
  }
  return out
}

/** A user event from the CLI: tool results, and its own notes in the user's place (`[Request interrupted by user]`). */
function userEvent(content: unknown): TranscriptLine[] {
  if (!Array.isArray(content)) return []
  return content.flatMap((p): TranscriptLine[] => {
    if (p?.type === 'text' && typeof p.text === 'string') return [{ kind: 'system', text: p.text }]
    if (p?.type !== 'tool_result') return []
    const text = typeof p.content === 'string' ? p.content : JSON.stringify(p.content ?? '')
    return [{ kind: 'tool', text: `${p.is_error ? 'tool error' : 'tool result'}: ${truncate(text)}` }]
  })
}

/** A turn's end. An error result names its error as the evidence: a first turn that failed before any work is a
 * failure to start (the CLI's input is closed, it ends); a turn that worked first, or a later one, leaves it idle with
 * the error, and so does a retry loop the runner interrupted. Held messages go to the CLI as the next turn either way,
 * unless it is ending. */
function result(ev: Record<string, any>, state: RunnerState, now: number): Reduction {
  const held = state.queued ?? []
  const said = claudeResultError(ev)
  const error = said && state.gaveUp ? state.gaveUp.message : said
  const base: Partial<RunnerState> = {
    turns: (state.turns ?? 0) + (error ? 0 : 1),
    cost: typeof ev.total_cost_usd === 'number' ? { usd: ev.total_cost_usd, estimated: false } : state.cost,
  }
  const transcript: TranscriptLine[] = [
    error
      ? { kind: 'error', text: `result: ${ev.subtype ?? ''}: ${error}` }
      : { kind: 'system', text: `result: ${ev.subtype ?? ''}` },
  ]
  const failed = error && nothingRan(state) && !state.gaveUp
  return endOfTurn({
    base,
    transcript,
    now,
    source: 'stream: result',
    error,
    ...(failed ? { failedToStart: state.spawnError ? {} : { spawnError: { at: now, message: error } } } : {}),
    ...(held.length ? { sendHeld: userLine(joinQueued(held)) } : {}),
  })
}

/** An assistant message: its text and tool calls (the model's work), progress after a retry, and its error
 * (SDKAssistantMessage.error): a fatal one before any work is a failure to start. The CLI's own error message (with
 * `error` set) is no work of the model. */
function assistant(ev: Record<string, any>, state: RunnerState, now: number): Reduction {
  const transcript = assistantLines((ev.message?.content ?? []) as Array<Record<string, any>>)
  const progress: Partial<RunnerState> = isRetrying(state.phase)
    ? { phase: { value: 'working', source: 'stream: assistant', at: now } }
    : {}
  if (typeof ev.error !== 'string') {
    const worked = transcript.length
      ? firstWork(state, transcript.some((l) => l.kind === 'tool') ? 'a tool call' : 'output', now)
      : {}
    const changed = { ...progress, ...worked }
    return { transcript, ...(Object.keys(changed).length ? { state: changed } : {}) }
  }
  const message =
    transcript
      .filter((l) => l.kind === 'assistant')
      .map((l) => l.text)
      .join(' ') || ev.error
  const lines: TranscriptLine[] = [{ kind: 'error', text: `${ev.error}: ${message}` }]
  if (!isFatalClaudeError(ev.error) || !nothingRan(state) || state.gaveUp)
    return { state: { ...progress, lastError: { at: now, message } }, transcript: lines }
  return {
    state: { ...progress, spawnError: { at: now, message }, lastError: { at: now, message } },
    transcript: lines,
    closeInput: true,
  }
}

/** Harness `claude`: the Claude Code CLI in stream-json mode, one process for the whole conversation. Working from a
 * user message to the `result` event, idle after it while the process lives, needs-you on a `can_use_tool` control
 * request until it is answered. */
export const claudeAdapter: HarnessAdapter = {
  name: 'claude',
  buildLaunch(spec) {
    const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose']
    if (spec.model) args.push('--model', spec.model)
    if (spec.effort) args.push('--effort', spec.effort)
    // A successor continuing a session forks it, so two conversations never write one session; the CLI accepts a
    // chosen --session-id with --resume only together with --fork-session.
    if (spec.resume) args.push('--resume', spec.resume, '--fork-session')
    if (spec.session) args.push('--session-id', spec.session)
    args.push('--permission-prompt-tool', 'stdio')
    if (spec.permissions) args.push(...claudePermissionArgs(spec.permissions.claude))
    // A play lane gets no project instruction file: project (and local) settings carry CLAUDE.md.
    if (spec.play) args.push('--setting-sources', 'user')
    return {
      command: 'claude',
      args,
      stdin: 'keep-open',
      initialInput: spec.firstMessage ? userLine(spec.firstMessage) : undefined,
      // Set inside a Claude Code session; a nested CLI must not believe it runs inside its parent.
      unsetEnv: ['CLAUDECODE'],
    }
  },
  started(now, spec) {
    if (!spec.firstMessage) return { state: { phase: { value: 'idle', source: 'launch: no first message', at: now } } }
    return { state: { phase: { value: 'working', source: 'stream: first user message', at: now } } }
  },
  stdoutLine(line, state, now): Reduction {
    const ev = jsonEvent(line)
    if (!ev) return { transcript: [{ kind: 'stdout', text: line }] }
    switch (ev.type) {
      case 'system':
        if (ev.subtype === 'api_retry') {
          const text = claudeRetryText(ev)
          return {
            state: { phase: retryingPhase(text, now) },
            transcript: [{ kind: 'error', text: `retrying: ${text}` }],
          }
        }
        return ev.subtype === 'init'
          ? {
              state: { model: ev.model ?? state.model, session: ev.session_id ?? state.session },
              transcript: [{ kind: 'system', text: `session ${ev.session_id ?? '?'} model ${ev.model ?? '?'}` }],
            }
          : {}
      case 'assistant':
        return assistant(ev, state, now)
      case 'user':
        return { transcript: userEvent(ev.message?.content) }
      case 'result':
        return result(ev, state, now)
      case 'control_request': {
        if (ev.request?.subtype !== 'can_use_tool') return {}
        const kind = reasonFor(ev.request.tool_name)
        return {
          state: {
            phase: {
              value: 'needs-you',
              reason: kind,
              source: 'stream: can_use_tool',
              at: now,
              detail: ev.request.tool_name,
            },
            pending: { id: String(ev.request_id), kind, tool: ev.request.tool_name, input: ev.request.input, at: now },
          },
          transcript: [{ kind: 'tool', text: `needs you (${kind}): ${ev.request.tool_name}` }],
        }
      }
      case 'control_cancel_request':
        return withdrawn(state, ev.request_id, 'stream: control_cancel_request', now)
      default:
        return {}
    }
  },
  deliver(text, state, now) {
    if (busy(state)) return hold(text, state)
    return {
      stdin: userLine(text),
      state: { phase: { value: 'working', source: 'stream: user message', at: now } },
      transcript: [{ kind: 'user', text }],
    }
  },
  answer(a, state, now) {
    const p = state.pending
    if (!p || p.id !== a.id)
      return {
        transcript: [
          {
            kind: 'system',
            text: `answer ${a.decision} to request ${a.id} ignored: the harness no longer waits on it`,
          },
        ],
      }
    return {
      stdin: jsonLine({
        type: 'control_response',
        response: { subtype: 'success', request_id: p.id, response: permissionResponse(p, a) },
      }),
      state: {
        pending: undefined,
        phase: { value: 'working', source: `answer: ${a.decision}`, at: now, detail: p.tool },
      },
      transcript: [
        {
          kind: 'user',
          text: `${a.decision} (${p.kind}: ${p.tool ?? '?'})${a.message !== undefined ? `: ${a.message}` : ''}`,
        },
      ],
    }
  },
  interrupt(state) {
    return jsonLine({
      type: 'control_request',
      request_id: `svc-interrupt-${state.turns ?? 0}`,
      request: { subtype: 'interrupt' },
    })
  },
  exited(exit, state, now) {
    // Ending unasked before anything ran is a failure to start (a bad flag, a missing login); after work it is not.
    if (exit.stopping || state.spawnError || !nothingRan(state)) return { end: true }
    // It ended while the runner interrupted a retry loop: the retries are its error, not a failure to start.
    if (state.gaveUp) return { end: true, state: { lastError: { at: now, message: state.gaveUp.message } } }
    return { end: true, state: { spawnError: { at: now, message: failureText('claude', exit, state) } } }
  },
}
