import type { LaunchSpec, RunnerState } from '../../kernel/domain/runner-state.js'
import type { Answer, HarnessAdapter, Reduction, TranscriptLine } from '../../kernel/io/harness/types.js'
import { isDirective, materialize, recordDecision, type Entry, type Vars } from '../../fixtures/streams.js'

export const NOW = 1_700_000_000_000

export interface Replay {
  state: RunnerState
  /** Each distinct activity phase in order, `needs-you` with its reason: `needs-you:plan`. */
  phases: string[]
  transcript: TranscriptLine[]
  /** What the adapter wrote to the harness's stdin, parsed. */
  stdin: Record<string, any>[]
  reductions: Reduction[]
}

export const freshState = (): RunnerState => ({ runner: { pid: 100, start: '555' } })

/** A launch spec of a builder lane, with what a test sets over it. */
export const launchSpec = (extra: Partial<LaunchSpec> = {}): LaunchSpec => ({
  id: '7',
  name: 'r1-b',
  harness: 'claude',
  cwd: '/lanes/r1-b',
  env: {},
  envDrop: [],
  envDropPrefixes: [],
  play: false,
  ...extra,
})

/** Fold a recorded stream through an adapter the way the runner does, with the answers a test gives: events go to
 * stdoutLine, `$await control_response` asks `answer` (and the adapter's control_response decides which `$only`
 * events follow, as in the fake CLI), `$await user` stops (a turn boundary). Pure: no process, no clock. The launch
 * had the first message PROMPT, as a lane's has. */
export function replay(
  adapter: HarnessAdapter,
  entries: Entry[],
  opts: {
    vars?: Vars
    answer?: (pending: NonNullable<RunnerState['pending']>) => Omit<Answer, 'id'>
    state?: RunnerState
    started?: boolean
  } = {},
): Replay {
  const vars: Vars = {
    SESSION: 'sess-1',
    MODEL: 'claude-test-1',
    CWD: '/lanes/r1-b',
    TOTAL_COST: 0,
    THREAD: 'thread-1',
    PROMPT: 'the brief',
    HEAD: 'the brief',
    ...opts.vars,
  }
  const out: Replay = { state: opts.state ?? freshState(), phases: [], transcript: [], stdin: [], reductions: [] }
  let t = NOW
  const apply = (r: Reduction) => {
    out.reductions.push(r)
    if (r.state) out.state = { ...out.state, ...r.state }
    out.transcript.push(...(r.transcript ?? []))
    if (r.stdin)
      out.stdin.push(
        ...r.stdin
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      )
    const p = out.state.phase
    const label = p ? (p.value === 'needs-you' ? `needs-you:${p.reason}` : p.value) : 'none'
    if (out.phases.at(-1) !== label) out.phases.push(label)
  }
  if (opts.started !== false)
    apply(
      adapter.started(
        t,
        launchSpec({ harness: adapter.name, cwd: String(vars.CWD), firstMessage: String(vars.PROMPT) }),
      ),
    )
  for (const e of entries) {
    t += 1
    if (!isDirective(e)) {
      const ev = materialize(e, vars)
      if (ev) apply(adapter.stdoutLine(JSON.stringify(ev), out.state, t))
    } else if (e.$await === 'control_response') {
      const pending = out.state.pending
      if (!pending || !opts.answer || !adapter.answer) break
      const before = out.stdin.length
      apply(adapter.answer({ id: pending.id, ...opts.answer(pending) }, out.state, t))
      const response = out.stdin.slice(before).find((m) => m.type === 'control_response')
      if (response) recordDecision(vars, response.response.response)
    } else if (e.$await === 'user' || e.$hang || e.$exit !== undefined) break
  }
  return out
}
