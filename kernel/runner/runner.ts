import { appendFileSync, existsSync, readFileSync, watch } from 'node:fs'
import { nextRetryWatch, nextTurn, retryLimitMs, retryVerdict } from '../domain/harness-signals.js'
import type { LaunchSpec, RunnerState } from '../domain/runner-state.js'
import { KEY_VARIABLE } from '../domain/acting-as.js'
import { convFiles } from '../io/home.js'
import { writeFileAtomicSync } from '../io/atomic-file.js'
import { adapterFor } from '../io/harness/index.js'
import type { Answer, LaunchPlan, Reduction } from '../io/harness/types.js'
import { testTiming } from '../io/test-timing.js'
import { endDescendants, liveChildren } from '../io/subreaper.js'
import { startHarness, type HarnessExit, type HarnessProcess } from './harness-process.js'
import { jsonlTail } from './jsonl-tail.js'

/** After an interrupt request, the harness gets this long to end its turn and exit before SIGTERM. */
const INTERRUPT_GRACE_MS = 1500

/** Drives one conversation's harness, in the home's runner process (kernel/runner/local-runner.ts) beside every
 * other lane of the home. The harness runs under a supervisor of its own (io/subreaper), which the kernel knows as
 * the lane's runner: it leads the lane's process group and session, adopts its orphans and passes the kernel's stop
 * signals here. This alone writes state.json and transcript.jsonl in the conversation's directory. The adapter
 * decides (purely) what each event, message, answer and exit means; this function does the I/O. `laneEnv` is the
 * environment the kernel gives the lane (with its key); `started` is told the supervisor once it runs, or nothing
 * when the lane failed before. Resolves once no process of the lane is left. */
export async function runLane(
  home: string,
  name: string,
  laneEnv: NodeJS.ProcessEnv,
  started: (supervisor: { pid: number; start: string } | undefined) => void,
): Promise<number> {
  const files = convFiles(home, name)
  const spec = JSON.parse(readFileSync(files.launch, 'utf8')) as LaunchSpec
  /** After SIGTERM, the harness gets this long before its whole group is killed (a test build may shorten it). */
  const STOP_GRACE_MS = testTiming('STOP_GRACE', 5000, laneEnv)
  /** How late the runner acts on its harness's end: 0, except where a test build makes it late, as a runner busy
   * with other lanes can be. */
  const EXIT_NOTICE_MS = testTiming('EXIT_NOTICE', 0, laneEnv)
  let state: RunnerState = {}
  let transcriptN = countLines(files.transcript)
  // Nothing more is written once the supervisor was killed: like a runner killed, the lane ends without a word.
  let abandoned = false
  let stopped!: () => void
  const stopAsked = new Promise<void>((r) => (stopped = r))
  const publish = () => abandoned || writeFileAtomicSync(files.state, JSON.stringify(state) + '\n')
  const record = (lines: Reduction['transcript']) => {
    if (!lines?.length || abandoned) return
    const at = Date.now()
    appendFileSync(files.transcript, lines.map((l) => JSON.stringify({ n: ++transcriptN, at, ...l })).join('\n') + '\n')
  }
  publish()

  const adapter = adapterFor(spec.harness)
  const fail = (message: string) => {
    const at = Date.now()
    state = {
      ...state,
      phase: undefined,
      spawnError: { at, message },
      ended: { at, exitCode: null, signal: null, source: 'spawn error' },
    }
    record([{ kind: 'error', text: message }])
    publish()
    started(undefined)
    return 1
  }
  if (!adapter) return fail(`harness ${spec.harness} has no runner adapter`)
  let first: LaunchPlan
  try {
    first = adapter.buildLaunch(spec)
  } catch (e) {
    return fail((e as Error).message)
  }
  if (!existsSync(spec.cwd)) return fail(`working directory ${spec.cwd} does not exist`)

  let child: HarnessProcess | undefined
  let stopSource: string | undefined
  let finished!: () => void
  const over = new Promise<void>((resolve) => (finished = resolve))

  const apply = (r: Reduction) => {
    if (r.state) state = { ...state, ...r.state }
    if (r.state?.phase)
      state = {
        ...state,
        retrying: nextRetryWatch(state.retrying, state.phase, Date.now()),
        turn: nextTurn(state.turn, state.phase, Date.now()),
      }
    record(r.transcript)
    if (r.stdin) child?.write(r.stdin)
    if (r.closeInput) child?.closeInput()
    if (r.state) publish()
    watchRetries()
  }

  // A harness retrying without progress for longer than the limit has its turn interrupted (its own protocol, else
  // a signal to the turn's process): the turn ends idle with the retries as its error, and waits see an idle lane.
  const retryLimit = retryLimitMs(laneEnv.SERVICE_RETRY_LIMIT_MS)
  let retryTimer: NodeJS.Timeout | undefined
  const watchRetries = () => {
    clearTimeout(retryTimer)
    const verdict = retryVerdict(state.retrying, Date.now(), retryLimit)
    if (!verdict.exceeded) {
      if (state.retrying && !done) retryTimer = setTimeout(watchRetries, verdict.inMs)
      return
    }
    const proc = child
    if (!proc || stopSource || state.gaveUp) return
    state = { ...state, retrying: undefined, gaveUp: { at: Date.now(), message: verdict.message } }
    record([{ kind: 'error', text: verdict.message }])
    publish()
    const ask = adapter.interrupt?.(state)
    if (!ask) return proc.kill('SIGTERM')
    proc.write(ask)
    setTimeout(() => child === proc && state.gaveUp && proc.kill('SIGTERM'), INTERRUPT_GRACE_MS).unref()
  }

  /** Start the harness process; a failure to start it ends the lane as a spawn error. */
  let supervisor: HarnessProcess['supervisor'] | undefined
  let gone: Promise<{ exitSeen: boolean }> = Promise.resolve({ exitSeen: true })
  const launch = async (plan: LaunchPlan): Promise<boolean> => {
    record(plan.notes?.map((text) => ({ kind: 'system' as const, text })))
    const env = childEnv(spec, plan, laneEnv)
    const proc = await startHarness(plan, spec.cwd, env, {
      stdout: (line) => apply(adapter.stdoutLine(line, state, Date.now())),
      stderr: (line) => record([{ kind: 'stderr', text: line }]),
      stop: (sig) => onStop(sig),
    })
    if ('error' in proc) {
      fail(proc.error)
      return false
    }
    child = proc
    supervisor = proc.supervisor
    if (stopSource) proc.kill('SIGTERM') // the stop came while it was starting
    const { start } = proc
    // Published with what the adapter says of the start (below): a harness with no phase yet would read as idle.
    state = { ...state, runner: proc.supervisor, harness: { pid: proc.pid, start, at: Date.now() } }
    void proc.exited.then((exit) =>
      EXIT_NOTICE_MS ? setTimeout(() => onExit(proc, exit), EXIT_NOTICE_MS) : onExit(proc, exit),
    )
    // The supervisor killed before the harness's end was told (the kernel's SIGKILL, a person's): the lane ends
    // as a killed runner's does, with nothing written, and the kernel sees its runner gone.
    gone = proc.gone.then((g) => {
      if (!g.exitSeen && !done) {
        abandoned = done = true
        clearTimeout(retryTimer)
        finished()
      }
      return g
    })
    return true
  }

  const onExit = (proc: HarnessProcess, exit: HarnessExit) => {
    if (child === proc) child = undefined
    const r = adapter.exited({ ...exit, stopping: Boolean(stopSource) }, state, Date.now(), spec)
    apply(r)
    if (r.end || stopSource) end(exit, 'harness exited')
  }

  let done = false
  const end = (exit: { code: number | null; signal: string | null }, what: string) => {
    if (done) return
    done = true
    clearTimeout(retryTimer)
    const at = Date.now()
    state = {
      ...state,
      phase: undefined,
      pending: undefined,
      ended: { at, exitCode: exit.code, signal: exit.signal, source: stopSource ?? 'process exit' },
    }
    record([{ kind: 'system', text: `${what} (${exit.signal ?? `code ${exit.code}`})` }])
    publish()
    finished()
  }

  if (!(await launch(first))) return 1
  apply(adapter.started(Date.now(), spec))
  publish()
  started(supervisor)

  // Messages sent with `tell` arrive as lines of inbox.jsonl, answers to a pending request as lines of answers.jsonl
  // (both kernel-written); each is handled once. Those already there were sent before the runner started.
  const bad = (file: string) => (line: string) =>
    record([{ kind: 'error', text: `${file}: not a JSON line: ${line.slice(0, 200)}` }])
  const readInbox = jsonlTail(
    files.inbox,
    (m) => {
      const r = adapter.deliver((m as { text: string }).text, state, Date.now(), spec)
      if (r.appendToFile !== undefined) appendFileSync(files.shellInbox, r.appendToFile)
      apply(r)
    },
    bad('inbox.jsonl'),
  )
  const readAnswers = jsonlTail(
    files.answers,
    (a) =>
      apply(
        adapter.answer
          ? adapter.answer(a as Answer, state, Date.now())
          : { transcript: [{ kind: 'error', text: `the ${spec.harness} harness takes no answers` }] },
      ),
    bad('answers.jsonl'),
  )
  const poll = () => {
    if (stopSource) return
    readInbox()
    readAnswers()
  }
  poll()
  const watcher = watch(files.dir, (_e, f) => {
    if (f === 'inbox.jsonl' || f === 'answers.jsonl') poll()
  })
  const timer = setInterval(poll, 2000) // a lost watch event costs at most this long

  function onStop(sig: NodeJS.Signals) {
    if (stopSource) return
    stopSource = `stop (${sig})`
    stopped()
    const proc = child
    if (!proc) return end({ code: null, signal: sig }, 'runner stopped before its harness ran')
    // First ask the harness to end its turn (its own protocol), then signals; the kernel's stop escalates to the group.
    const ask = adapter!.interrupt?.(state)
    if (ask) {
      proc.write(ask)
      proc.closeInput()
      setTimeout(() => proc.kill('SIGTERM'), INTERRUPT_GRACE_MS).unref()
    } else proc.kill('SIGTERM')
    // Then every process below the supervisor, whatever its group; the supervisor stays to see them gone (not its
    // own group: killed with them, it would release what it adopted to init).
    const below = supervisor!.pid
    setTimeout(() => void endDescendants(below, STOP_GRACE_MS), STOP_GRACE_MS).unref()
  }

  await over
  watcher.close()
  clearInterval(timer)
  // What the lane left running is its supervisor's now (io/subreaper adopted it): the supervisor stays while any of
  // it runs, so that it stays in this conversation's tree and never calls as the person. A stop ends it all before
  // the supervisor goes: released to init, it would be no conversation's, and could call as the person.
  await Promise.race([gone, stopAsked])
  if (stopSource && supervisor && !abandoned) {
    if (!(await endDescendants(supervisor.pid, STOP_GRACE_MS)))
      record([
        {
          kind: 'error',
          text: `stop: processes of this lane outlived SIGKILL: ${liveChildren(supervisor.pid).join(' ')}`,
        },
      ])
    await gone
  }
  return 0
}

/** The harness's environment: the runner's own, without what the launch removes (a play lane's service context)
 * and what the harness must not inherit, plus the launch's variables, plus the conversation's key, which the
 * kernel gives the runner in its environment only. */
function childEnv(spec: LaunchSpec, plan: LaunchPlan, laneEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...laneEnv }
  const drop = [...spec.envDrop, ...(plan.unsetEnv ?? [])]
  for (const k of Object.keys(env))
    if (spec.envDropPrefixes.some((p) => k.startsWith(p)) || drop.includes(k)) delete env[k]
  Object.assign(env, spec.env)
  const key = laneEnv[KEY_VARIABLE]
  if (key) env[KEY_VARIABLE] = key
  return env
}

function countLines(path: string): number {
  if (!existsSync(path)) return 0
  let n = 0
  for (const b of readFileSync(path)) if (b === 10) n++
  return n
}
