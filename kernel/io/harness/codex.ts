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
import { busy, endOfTurn, failureText, hold, joinQueued, jsonEvent, withdrawn } from './common.js'
import type { Answer, LaunchPlan, Reduction, TranscriptLine } from './types.js'
import type { HarnessAdapter } from './types.js'

/** The codex harness speaks codex's app-server protocol (JSON-RPC, one message a line, on stdin and stdout): one
 * process for the whole conversation, a thread in it, a turn per message. Unlike `codex exec` it can ask: a command
 * its sandbox refused comes back as an approval request, which is the lane's needs-you until `svc conv answer`. */

const line = (message: Record<string, unknown>) => JSON.stringify(message) + '\n'
const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }]

/** Request ids the runner gives its own requests; an answer to an approval reuses codex's id. */
const ID = { init: 'svc-init', thread: 'svc-thread', fork: 'svc-fork' } as const

/** The process and its first requests: initialize, then a new thread, or a fork of the thread a successor continues.
 * Codex handles them in order, so they go at once; the first message waits for the thread's id. */
export function codexLaunch(spec: LaunchSpec): LaunchPlan {
  const args = ['app-server']
  if (spec.model) args.push('-c', `model=${JSON.stringify(spec.model)}`)
  // Effort low|medium|high is codex's own model_reasoning_effort, same names; -c takes a TOML value.
  if (spec.effort) args.push('-c', `model_reasoning_effort="${spec.effort}"`)
  // A play lane reads no project instruction file (AGENTS.md): a project doc budget of 0 bytes loads none.
  if (spec.play) args.push('-c', 'project_doc_max_bytes=0')
  args.push(...codexPermissionArgs(spec.permissions?.codex))
  const thread = { cwd: spec.cwd, ...(spec.model ? { model: spec.model } : {}) }
  const open = spec.resume
    ? { id: ID.fork, method: 'thread/fork', params: { threadId: spec.resume, ...thread } }
    : { id: ID.thread, method: 'thread/start', params: thread }
  return {
    command: 'codex',
    args,
    stdin: 'keep-open',
    initialInput:
      line({
        id: ID.init,
        method: 'initialize',
        params: {
          clientInfo: { name: 'svc', title: null, version: '1' },
          // The approval policy that asks for what the sandbox refused is codex's experimental API.
          capabilities: { experimentalApi: true, requestAttestation: false },
        },
      }) +
      line({ method: 'initialized' }) +
      line(open),
  }
}

/** A turn with these messages (held ones go together, in the order they were sent). */
const turnStart = (thread: string, messages: string[], now: number) =>
  line({ id: `svc-turn-${now}`, method: 'turn/start', params: { threadId: thread, input: text(joinQueued(messages)) } })

const TOOL_ITEMS: Record<string, (item: Record<string, any>) => string> = {
  commandExecution: (i) =>
    `$ ${shown(i)}` +
    `${i.status === 'declined' ? ' → declined' : typeof i.exitCode === 'number' ? ` → exit ${i.exitCode}` : ''}`,
  fileChange: (i) =>
    `changed ${(i.changes ?? []).map((c: Record<string, any>) => `${c.kind?.type ?? c.kind} ${c.path}`).join(', ')}`,
  mcpToolCall: (i) => `${i.server}.${i.tool} ${JSON.stringify(i.arguments ?? {})}`,
  webSearch: (i) => `search ${i.query}`,
}

/** The command as the model wrote it (codex wraps it in `/bin/bash -c '…'`). */
function shown(item: Record<string, any>): string {
  const actions = Array.isArray(item.commandActions) ? item.commandActions : []
  return actions.length === 1 && typeof actions[0]?.command === 'string' ? actions[0].command : String(item.command)
}

/** Items that are no work of the model: the user's own message echoed back. */
const NOT_WORK = new Set(['userMessage'])

/** An item is the model's work (a command, a change, a message, reasoning): the first one is recorded, and after a
 * retry it is progress. */
function progress(state: RunnerState, item: Record<string, any>, source: string, now: number): Partial<RunnerState> {
  if (!item.type || NOT_WORK.has(item.type)) return {}
  return {
    ...firstWork(state, `${source} ${String(item.type)}`, now),
    ...(isRetrying(state.phase) ? { phase: { value: 'working', source, at: now } } : {}),
  }
}

/** The words of an error: its message, with codex's details (the HTTP answer behind a retry) in brackets. */
function errorText(error: Record<string, any> | undefined): string {
  const message = String(error?.message ?? 'turn failed')
  return error?.additionalDetails ? `${message} (${String(error.additionalDetails)})` : message
}

/** The turn is over. Held messages start the next one; else idle, with the error when it failed. A first turn that
 * failed before any work is a failure to start: codex's input is closed and it ends. */
function turnCompleted(turn: Record<string, any>, state: RunnerState, now: number): Reduction {
  const status = String(turn.status)
  const said = status === 'failed' ? errorText(turn.error) : undefined
  const error = state.gaveUp && status !== 'completed' ? state.gaveUp.message : said
  const base: Partial<RunnerState> = {
    turns: (state.turns ?? 0) + (status === 'completed' ? 1 : 0),
    harnessTurn: undefined,
  }
  const transcript: TranscriptLine[] = [
    error
      ? { kind: 'error', text: `turn ${status}: ${error}` }
      : { kind: 'system', text: `turn ${status}${usageNote(state)}` },
  ]
  const held = state.queued ?? []
  return endOfTurn({
    base,
    transcript,
    now,
    source: 'stream: turn/completed',
    error,
    ...(said && nothingRan(state) && !state.gaveUp
      ? { failedToStart: { spawnError: { at: now, message: said } } }
      : {}),
    ...(held.length && state.session ? { sendHeld: turnStart(state.session, held, now) } : {}),
  })
}

const usageNote = (state: RunnerState) =>
  state.usage
    ? `; thread so far: ${state.usage.input} input (${state.usage.cachedInput} cached), ${state.usage.output} ` +
      `output tokens`
    : ''

/** Codex asks before running what its sandbox refused (a command, a file change): the conversation needs you. */
function approvalRequest(msg: Record<string, any>, now: number): Reduction {
  const p = msg.params ?? {}
  const command = msg.method === 'item/commandExecution/requestApproval'
  const tool = command ? 'command' : 'file change'
  const what = command ? String(p.commandActions?.length === 1 ? p.commandActions[0].command : p.command) : ''
  // What it would touch, as the deck and the notifications show a request: the command, or the root a change writes.
  const target = command ? { command: what, cwd: p.cwd } : p.grantRoot ? { path: p.grantRoot } : {}
  const input = { rpcId: msg.id, ...target, reason: p.reason ?? undefined }
  return {
    state: {
      phase: { value: 'needs-you', reason: 'permission', source: `stream: ${msg.method}`, at: now, detail: tool },
      pending: { id: String(msg.id), kind: 'permission', tool, input, at: now },
    },
    transcript: [
      {
        kind: 'tool',
        text: `needs you (permission): ${command ? `$ ${what}` : tool}${p.reason ? ` (${p.reason})` : ''}`,
      },
    ],
  }
}

const APPROVALS = new Set(['item/commandExecution/requestApproval', 'item/fileChange/requestApproval'])

/** A request of codex to its client. Approvals wait for a person; any other kind is refused at once, so codex never
 * waits on something svc cannot answer. */
function serverRequest(msg: Record<string, any>, now: number): Reduction {
  if (APPROVALS.has(msg.method)) return approvalRequest(msg, now)
  return {
    stdin: line({ id: msg.id, error: { code: -32601, message: `svc does not answer ${msg.method}` } }),
    transcript: [{ kind: 'system', text: `codex asked ${msg.method}: refused (svc does not answer it)` }],
  }
}

/** The answer to one of the runner's own requests. */
function response(msg: Record<string, any>, state: RunnerState, now: number): Reduction {
  const failed = msg.error ? String(msg.error.message ?? JSON.stringify(msg.error)) : undefined
  if (msg.id === ID.thread || msg.id === ID.fork) {
    if (failed) {
      const message = `codex could not ${msg.id === ID.fork ? 'fork the thread' : 'start a thread'}: ${failed}`
      return {
        state: { spawnError: { at: now, message } },
        transcript: [{ kind: 'error', text: message }],
        closeInput: true,
      }
    }
    const thread = String(msg.result?.thread?.id)
    const held = state.queued ?? []
    return {
      state: { session: thread, ...(held.length ? { queued: [] } : {}) },
      transcript: [{ kind: 'system', text: `thread ${thread}${msg.id === ID.fork ? ' (forked)' : ''}` }],
      ...(held.length ? { stdin: turnStart(thread, held, now) } : {}),
    }
  }
  if (!failed) return {}
  if (msg.id === ID.init || nothingRan(state))
    return {
      state: { spawnError: { at: now, message: `codex: ${failed}` } },
      transcript: [{ kind: 'error', text: failed }],
      closeInput: true,
    }
  return {
    state: { lastError: { at: now, message: failed }, phase: errorIdlePhase(failed, now) },
    transcript: [{ kind: 'error', text: failed }],
  }
}

/** A transient error announces a retry; any other is the turn's error (its turn/completed follows). */
function errorNotice(p: Record<string, any>, now: number): Reduction {
  const message = errorText(p.error)
  if (p.willRetry || isCodexRetry(message))
    return { state: { phase: retryingPhase(message, now) }, transcript: [{ kind: 'error', text: message }] }
  return { state: { lastError: { at: now, message } }, transcript: [{ kind: 'error', text: message }] }
}

function notification(msg: Record<string, any>, state: RunnerState, now: number): Reduction {
  const p = msg.params ?? {}
  switch (msg.method) {
    case 'turn/started':
      return {
        state: {
          harnessTurn: String(p.turn?.id),
          ...(isRetrying(state.phase) || state.phase?.value === 'working'
            ? {}
            : { phase: { value: 'working', source: 'stream: turn/started', at: now } }),
        },
      }
    case 'item/started': {
      const item = p.item ?? {}
      const changed = progress(state, item, 'stream: item/started', now)
      return {
        ...(Object.keys(changed).length ? { state: changed } : {}),
        ...(item.type === 'commandExecution'
          ? { transcript: [{ kind: 'tool' as const, text: `$ ${shown(item)}` }] }
          : {}),
      }
    }
    case 'item/completed': {
      const item = p.item ?? {}
      const changed = progress(state, item, 'stream: item/completed', now)
      const tool = TOOL_ITEMS[item.type]
      const transcript: TranscriptLine[] =
        item.type === 'agentMessage'
          ? [{ kind: 'assistant', text: String(item.text) }]
          : tool
            ? [{ kind: 'tool', text: tool(item) }]
            : []
      return { transcript, ...(Object.keys(changed).length ? { state: changed } : {}) }
    }
    case 'thread/tokenUsage/updated': {
      const used = codexThreadUsage(p.tokenUsage?.total)
      return {
        state: {
          usage: used,
          cost: { usd: estimateUsd(state.model, used), estimated: true, basis: CODEX_USAGE_BASIS },
        },
      }
    }
    case 'turn/completed':
      return turnCompleted(p.turn ?? {}, state, now)
    case 'error':
      return errorNotice(p, now)
    case 'warning':
    case 'configWarning':
      return { transcript: [{ kind: 'system', text: `warning: ${String(p.message ?? p.summary)}` }] }
    case 'serverRequest/resolved':
      return withdrawn(state, p.requestId, 'stream: serverRequest/resolved', now)
    default:
      return {}
  }
}

/** Harness `codex`: `codex app-server`, one process for the whole conversation. Working from a message to its
 * turn/completed, idle after it while the process lives, needs-you on an approval request until it is answered.
 * Its events carry token counts, no price: the cost is an estimate from them. */
export const codexAdapter: HarnessAdapter = {
  name: 'codex',
  buildLaunch: codexLaunch,
  started(now, spec) {
    const model = spec.model ? { model: spec.model } : {}
    if (spec.firstMessage === undefined)
      return { state: { ...model, phase: { value: 'idle', source: 'launch: waiting for a first message', at: now } } }
    // The first message waits for the thread's id, then starts the first turn.
    return {
      state: {
        ...model,
        queued: [spec.firstMessage],
        phase: { value: 'working', source: 'launch: first message', at: now },
      },
    }
  },
  stdoutLine(raw, state, now): Reduction {
    const msg = jsonEvent(raw)
    if (!msg) return { transcript: [{ kind: 'stdout', text: raw }] }
    if (typeof msg.method === 'string')
      return msg.id !== undefined ? serverRequest(msg, now) : notification(msg, state, now)
    return msg.id !== undefined ? response(msg, state, now) : {}
  },
  deliver(message, state, now) {
    if (busy(state) || !state.session) return hold(message, state)
    return {
      stdin: turnStart(state.session, [message], now),
      state: { phase: { value: 'working', source: 'stream: user message', at: now } },
      transcript: [{ kind: 'user', text: message }],
    }
  },
  answer(a: Answer, state, now) {
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
    const rpcId = (p.input as { rpcId?: unknown } | undefined)?.rpcId ?? p.id
    // Codex's decline carries no words: a message given with the answer follows as the next message.
    const follow = a.message !== undefined ? [...(state.queued ?? []), a.message] : state.queued
    return {
      stdin: line({ id: rpcId, result: { decision: a.decision === 'allow' ? 'accept' : 'decline' } }),
      state: {
        pending: undefined,
        ...(follow ? { queued: follow } : {}),
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
    if (!state.session || !state.harnessTurn) return undefined
    return line({
      id: `svc-interrupt-${state.turns ?? 0}`,
      method: 'turn/interrupt',
      params: { threadId: state.session, turnId: state.harnessTurn },
    })
  },
  exited(exit, state, now) {
    // Ending unasked before anything ran is a failure to start (a bad flag, no login); after work it is not.
    if (exit.stopping || state.spawnError) return { end: true }
    if (state.gaveUp) return { end: true, state: { lastError: { at: now, message: state.gaveUp.message } } }
    if (!nothingRan(state))
      return { end: true, state: { lastError: { at: now, message: failureText('codex', exit, state) } } }
    return { end: true, state: { spawnError: { at: now, message: failureText('codex', exit, state) } } }
  },
}
