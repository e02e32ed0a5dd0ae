import type { LaunchSpec, RunnerState } from '../../domain/runner-state.js'
import {
  errorIdlePhase,
  firstWork,
  isCodexRetry,
  isRetrying,
  nothingRan,
  retryingPhase,
} from '../../domain/harness-signals.js'
import { codexPermissionArgs } from '../../domain/permissions.js'
import { CODEX_USAGE_BASIS, codexThreadUsage, estimateUsd } from '../../domain/token-cost.js'
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
  args.push(...(spec.permissions ? codexPermissionArgs(spec.permissions.codex) : ['-s', 'workspace-write']))
  args.push('--skip-git-repo-check')
  if (thread) args.push('resume', thread)
  args.push('--', text)
  return { command: 'codex', args, stdin: 'none' }
}

const TOOL_ITEMS: Record<string, (item: Record<string, any>) => string> = {
  command_execution: (i) =>
    `$ ${i.command}${i.exit_code === null || i.exit_code === undefined ? '' : ` → exit ${i.exit_code}`}`,
  file_change: (i) => `changed ${(i.changes ?? []).map((c: Record<string, any>) => `${c.kind} ${c.path}`).join(', ')}`,
  mcp_tool_call: (i) => `${i.server}.${i.tool} ${JSON.stringify(i.arguments ?? {})}`,
  web_search: (i) => `search ${i.query}`,
}

/** Codex's `error` items are warnings (a model without metadata, a deprecated setting): said, not fatal. */
function itemCompleted(item: Record<string, any>): Reduction {
  if (item.type === 'agent_message') return { transcript: [{ kind: 'assistant', text: String(item.text) }] }
  if (item.type === 'error') return { transcript: [{ kind: 'system', text: `warning: ${String(item.message)}` }] }
  const tool = TOOL_ITEMS[item.type]
  return tool ? { transcript: [{ kind: 'tool', text: tool(item) }] } : {}
}

/** The turn is over: idle (with the error as evidence when it failed), unless messages are held; they start the next
 * process on exit. */
function turnOver(state: RunnerState, source: string, now: number, error?: string): Partial<RunnerState> {
  const phase: RunnerState['phase'] = state.queued?.length
    ? { value: 'working', source, at: now }
    : error
      ? errorIdlePhase(error, now)
      : { value: 'idle', source, at: now }
  return { phase, retrying: undefined }
}

function turnCompleted(ev: Record<string, any>, state: RunnerState, now: number): Reduction {
  const usage = codexThreadUsage(ev.usage)
  return {
    state: {
      ...turnOver(state, 'stream: turn.completed', now),
      turns: (state.turns ?? 0) + 1,
      usage,
      cost: { usd: estimateUsd(state.model, usage), estimated: true, basis: CODEX_USAGE_BASIS },
    },
    transcript: [
      {
        kind: 'system',
        text: `turn completed; thread so far: ${usage.input} input (${usage.cachedInput} cached), ${usage.output} output tokens`,
      },
    ],
  }
}

/** An item is the model's work (a command, a change, a message; a warning is not): the first one is recorded, and
 * after a retry it is progress. */
function progress(state: RunnerState, item: Record<string, any>, source: string, now: number): Reduction {
  const worked = item.type && item.type !== 'error' ? firstWork(state, `${source} ${String(item.type)}`, now) : {}
  const changed: Partial<RunnerState> = {
    ...worked,
    ...(isRetrying(state.phase) ? { phase: { value: 'working', source, at: now } } : {}),
  }
  return Object.keys(changed).length ? { state: changed } : {}
}

/** A transient `error` event announces a retry; any other is the turn's error (a turn.failed follows). */
function errorEvent(message: string, now: number): Reduction {
  if (isCodexRetry(message))
    return { state: { phase: retryingPhase(message, now) }, transcript: [{ kind: 'error', text: message }] }
  return { state: { lastError: { at: now, message } }, transcript: [{ kind: 'error', text: message }] }
}

/** The codex banner on stderr when it reads no prompt from stdin: never the reason of a failure. */
const BANNER = /^Reading (additional )?(input|prompt) from stdin/

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
    return spec.resume
      ? { ...plan, notes: ['codex exec cannot fork a thread: this conversation starts a new one'] }
      : plan
  },
  started(now, spec) {
    const model = spec.model ? { model: spec.model } : {}
    if (spec.firstMessage === undefined)
      return { state: { ...model, phase: { value: 'idle', source: 'launch: waiting for a first message', at: now } } }
    return { state: { ...model, phase: { value: 'working', source: 'launch: first message', at: now } } }
  },
  stdoutLine(line, state, now): Reduction {
    const ev = jsonEvent(line)
    if (!ev) return { transcript: [{ kind: 'stdout', text: line }] }
    switch (ev.type) {
      case 'thread.started':
        return {
          state: { session: String(ev.thread_id) },
          transcript: [{ kind: 'system', text: `thread ${ev.thread_id}` }],
        }
      case 'turn.started':
        return { state: { phase: { value: 'working', source: 'stream: turn.started', at: now } } }
      case 'item.started': {
        const item = ev.item ?? {}
        return {
          ...progress(state, item, 'stream: item.started', now),
          ...(item.type === 'command_execution'
            ? { transcript: [{ kind: 'tool' as const, text: `$ ${item.command}` }] }
            : {}),
        }
      }
      case 'item.completed':
        return { ...itemCompleted(ev.item ?? {}), ...progress(state, ev.item ?? {}, 'stream: item.completed', now) }
      case 'turn.completed':
        return turnCompleted(ev, state, now)
      case 'turn.failed': {
        const message = String(ev.error?.message ?? 'turn failed')
        return {
          state: { ...turnOver(state, 'stream: turn.failed', now, message), lastError: { at: now, message } },
          transcript: [{ kind: 'error', text: `turn failed: ${message}` }],
        }
      }
      case 'error':
        return errorEvent(String(ev.message), now)
      default:
        return {}
    }
  },
  deliver(text, state, now, spec) {
    if (busy(state)) return hold(text, state)
    return {
      spawn: codexTurn(spec, text, state.session),
      state: {
        phase: {
          value: 'working',
          source: state.session ? 'launch: codex exec resume' : 'launch: first message',
          at: now,
        },
      },
      transcript: [{ kind: 'user', text }],
    }
  },
  exited(exit, state, now, spec) {
    if (exit.stopping) return { end: true }
    const failed = exit.code !== 0 || exit.signal !== null
    const gist = stderrGist(exit.stderrTail.filter((l) => !BANNER.test(l)))
    // A retry loop the runner interrupted leaves it idle with the retries as the error, whichever turn it was.
    if (state.gaveUp)
      return afterTurn(state, spec, now, state.gaveUp.message, { gaveUp: undefined, retrying: undefined })
    // A first turn that failed before any work is a failure to start (no login, a bad flag, an unknown model).
    if (nothingRan(state) && (failed || state.lastError))
      return {
        end: true,
        state: {
          spawnError: { at: now, message: failureText('codex', { ...exit, stderrTail: gist ? [gist] : [] }, state) },
        },
      }
    // This turn's own error (one said since the turn's phase was set), else how the process ended.
    const own =
      state.lastError && state.phase && state.lastError.at >= state.phase.at ? state.lastError.message : undefined
    const said = failed ? (own ?? `codex ${exitText(exit)}${gist ? `: ${gist}` : ''}`) : undefined
    return afterTurn(state, spec, now, said, {})
  },
}

/** After a turn's process: held messages start the next one; else idle, with the error when the turn failed. */
function afterTurn(
  state: RunnerState,
  spec: LaunchSpec,
  now: number,
  error: string | undefined,
  extra: Partial<RunnerState>,
): Reduction & { end: boolean } {
  const transcript: TranscriptLine[] =
    error && error !== state.lastError?.message ? [{ kind: 'error', text: error }] : []
  const errorState: Partial<RunnerState> = error ? { lastError: { at: now, message: error } } : {}
  const held = state.queued ?? []
  if (held.length) {
    return {
      end: false,
      transcript,
      spawn: codexTurn(spec, joinQueued(held), state.session),
      state: {
        ...extra,
        ...errorState,
        queued: [],
        phase: { value: 'working', source: 'launch: held messages', at: now },
      },
    }
  }
  if (error) return { end: false, transcript, state: { ...extra, ...errorState, phase: errorIdlePhase(error, now) } }
  if (state.phase?.value !== 'working') return { end: false, transcript, state: extra }
  return {
    end: false,
    transcript,
    state: { ...extra, phase: { value: 'idle', source: 'process exit: the turn ended without completing', at: now } },
  }
}
