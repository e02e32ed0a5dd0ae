import type { LaunchSpec, RunnerState } from '../../domain/runner-state.js'
import { addUsage, estimateUsd } from '../../domain/token-cost.js'
import { busy, exitText, failureText, hold, joinQueued, stderrGist, jsonEvent } from './common.js'
import type { HarnessAdapter, LaunchPlan, Reduction, TranscriptLine } from './types.js'

/** One `codex exec` process: a new thread with its first message, or `resume <thread>` with a further one. Options go
 * before the subcommand (they are the exec command's own); the message follows `--`, so no text reads as a flag. */
export function codexTurn(spec: LaunchSpec, text: string, thread?: string): LaunchPlan {
  const args = ['exec', '--json', '-C', spec.cwd]
  if (spec.model) args.push('-m', spec.model)
  // Effort low|medium|high is codex's own model_reasoning_effort, same names; -c takes a TOML value.
  if (spec.effort) args.push('-c', `model_reasoning_effort="${spec.effort}"`)
  // A play lane reads no project instruction file (AGENTS.md): a project doc budget of 0 bytes loads none.
  if (spec.play) args.push('-c', 'project_doc_max_bytes=0')
  args.push('-s', 'workspace-write', '--skip-git-repo-check')
  if (thread) args.push('resume', thread)
  args.push('--', text)
  return { command: 'codex', args, stdin: 'none' }
}

const TOOL_ITEMS: Record<string, (item: Record<string, any>) => string> = {
  command_execution: (i) => `$ ${i.command}${i.exit_code === null || i.exit_code === undefined ? '' : ` → exit ${i.exit_code}`}`,
  file_change: (i) => `changed ${(i.changes ?? []).map((c: Record<string, any>) => `${c.kind} ${c.path}`).join(', ')}`,
  mcp_tool_call: (i) => `${i.server}.${i.tool} ${JSON.stringify(i.arguments ?? {})}`,
  web_search: (i) => `search ${i.query}`,
}

function itemCompleted(item: Record<string, any>, now: number): Reduction {
  if (item.type === 'agent_message') return { transcript: [{ kind: 'assistant', text: String(item.text) }] }
  if (item.type === 'error') return { state: { lastError: { at: now, message: String(item.message) } }, transcript: [{ kind: 'error', text: String(item.message) }] }
  const tool = TOOL_ITEMS[item.type]
  return tool ? { transcript: [{ kind: 'tool', text: tool(item) }] } : {}
}

/** The turn is over (completed or failed): idle, unless messages are held; they start the next process on exit. */
const turnOver = (state: RunnerState, source: string, now: number): Partial<RunnerState> => ({
  phase: { value: state.queued?.length ? 'working' : 'idle', source, at: now },
})

function turnCompleted(ev: Record<string, any>, state: RunnerState, now: number): Reduction {
  const u = ev.usage ?? {}
  const usage = addUsage(state.usage, { input: Number(u.input_tokens ?? 0), cachedInput: Number(u.cached_input_tokens ?? 0), output: Number(u.output_tokens ?? 0) })
  return {
    state: { ...turnOver(state, 'stream: turn.completed', now), turns: (state.turns ?? 0) + 1, usage, cost: { usd: estimateUsd(state.model, usage), estimated: true } },
    transcript: [{ kind: 'system', text: `turn completed: ${u.input_tokens ?? 0} input (${u.cached_input_tokens ?? 0} cached), ${u.output_tokens ?? 0} output tokens` }],
  }
}

/** Harness `codex`: `codex exec --json`, one process per turn; a further message resumes the thread. Between turns
 * the runner waits for messages, and that is what alive means (lifetime `runner`). Working from turn.started (or
 * the launch of a turn) to turn.completed or turn.failed. Codex exec asks for no approvals, so never needs-you. Its
 * events carry token counts, no price: the cost is an estimate from them. */
export const codexAdapter: HarnessAdapter = {
  name: 'codex',
  lifetime: 'runner',
  buildLaunch(spec) {
    if (spec.firstMessage === undefined) return undefined
    const plan = codexTurn(spec, spec.firstMessage)
    return spec.resume ? { ...plan, notes: ['codex exec cannot fork a thread: this conversation starts a new one'] } : plan
  },
  started(now, spec) {
    const model = spec.model ? { model: spec.model } : {}
    if (spec.firstMessage === undefined) return { state: { ...model, phase: { value: 'idle', source: 'launch: waiting for a first message', at: now } } }
    return { state: { ...model, phase: { value: 'working', source: 'launch: first message', at: now } } }
  },
  stdoutLine(line, state, now): Reduction {
    const ev = jsonEvent(line)
    if (!ev) return { transcript: [{ kind: 'stdout', text: line }] }
    switch (ev.type) {
      case 'thread.started':
        return { state: { session: String(ev.thread_id) }, transcript: [{ kind: 'system', text: `thread ${ev.thread_id}` }] }
      case 'turn.started':
        return { state: { phase: { value: 'working', source: 'stream: turn.started', at: now } } }
      case 'item.started': {
        const item = ev.item ?? {}
        return item.type === 'command_execution' ? { transcript: [{ kind: 'tool', text: `$ ${item.command}` }] } : {}
      }
      case 'item.completed':
        return itemCompleted(ev.item ?? {}, now)
      case 'turn.completed':
        return turnCompleted(ev, state, now)
      case 'turn.failed': {
        const message = String(ev.error?.message ?? 'turn failed')
        return { state: { ...turnOver(state, 'stream: turn.failed', now), lastError: { at: now, message } }, transcript: [{ kind: 'error', text: `turn failed: ${message}` }] }
      }
      case 'error':
        return { state: { lastError: { at: now, message: String(ev.message) } }, transcript: [{ kind: 'error', text: String(ev.message) }] }
      default:
        return {}
    }
  },
  deliver(text, state, now, spec) {
    if (busy(state)) return hold(text, state)
    return {
      spawn: codexTurn(spec, text, state.session),
      state: { phase: { value: 'working', source: state.session ? 'launch: codex exec resume' : 'launch: first message', at: now } },
      transcript: [{ kind: 'user', text }],
    }
  },
  exited(exit, state, now, spec) {
    if (exit.stopping) return { end: true }
    const failed = exit.code !== 0 || exit.signal !== null
    // A first turn that never completed is a failure to start (no login, a bad flag, an unknown model).
    if (!state.turns && (failed || state.lastError)) return { end: true, state: { spawnError: { at: now, message: failureText('codex', exit, state) } } }
    const gist = stderrGist(exit.stderrTail)
    const said = failed ? `codex ${exitText(exit)}${gist ? `: ${gist}` : ''}` : undefined
    const transcript: TranscriptLine[] = said ? [{ kind: 'error', text: said }] : []
    const error: Partial<RunnerState> = said ? { lastError: { at: now, message: said } } : {}
    const held = state.queued ?? []
    if (held.length) {
      return {
        end: false,
        transcript,
        spawn: codexTurn(spec, joinQueued(held), state.session),
        state: { ...error, queued: [], phase: { value: 'working', source: 'launch: held messages', at: now } },
      }
    }
    if (state.phase?.value !== 'working') return { end: false, transcript, state: error }
    return { end: false, transcript, state: { ...error, phase: { value: 'idle', source: 'process exit: the turn ended without completing', at: now } } }
  },
}
