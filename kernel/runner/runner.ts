import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, openSync, readSync, closeSync, statSync, watch, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { LaunchSpec, RunnerState } from '../domain/runner-state.js'
import { convFiles } from '../home.js'
import { writeFileAtomicSync } from '../io/atomic-file.js'
import { adapterFor } from '../io/harness/index.js'
import type { Reduction } from '../io/harness/types.js'
import { processStartTime, signalGroup } from '../io/procs.js'

const STOP_GRACE_MS = 5000

/** `svc runner <name>`: drives one conversation's harness. Detached in its own process group; it alone writes
 * state.json and transcript.jsonl in the conversation's directory. */
export async function runRunner(home: string, name: string): Promise<number> {
  const files = convFiles(home, name)
  const spec = JSON.parse(readFileSync(files.launch, 'utf8')) as LaunchSpec
  let state: RunnerState = { runner: { pid: process.pid, start: processStartTime(process.pid) ?? '' } }
  let transcriptN = countLines(files.transcript)
  const publish = () => writeFileAtomicSync(files.state, JSON.stringify(state) + '\n')
  const record = (lines: Reduction['transcript']) => {
    if (!lines?.length) return
    const at = Date.now()
    appendFileSync(files.transcript, lines.map((l) => JSON.stringify({ n: ++transcriptN, at, ...l })).join('\n') + '\n')
  }
  publish()

  const adapter = adapterFor(spec.harness)
  const fail = (message: string) => {
    const at = Date.now()
    state = { ...state, spawnError: { at, message }, ended: { at, exitCode: null, signal: null, source: 'spawn error' } }
    record([{ kind: 'error', text: message }])
    publish()
    return 1
  }
  if (!adapter) return fail(`harness ${spec.harness} has no runner adapter`)
  let plan
  try {
    plan = adapter.buildLaunch(spec)
  } catch (e) {
    return fail((e as Error).message)
  }
  if (!existsSync(spec.cwd)) return fail(`working directory ${spec.cwd} does not exist`)

  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const k of Object.keys(env)) if (spec.envDropPrefixes.some((p) => k.startsWith(p)) || spec.envDrop.includes(k)) delete env[k]
  Object.assign(env, spec.env)

  const apply = (r: Reduction, child?: ChildProcess) => {
    if (r.state) state = { ...state, ...r.state }
    record(r.transcript)
    if (r.stdin && child?.stdin?.writable) child.stdin.write(r.stdin)
    if (r.state) publish()
  }

  let child: ChildProcess
  try {
    child = spawn(plan.command, plan.args, { cwd: spec.cwd, env, stdio: [plan.stdin === 'none' ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
  } catch (e) {
    return fail(`could not start ${plan.command}: ${(e as Error).message}`)
  }
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined))
    child.once('error', (e) => resolve(e))
  })
  if (spawned) {
    const code = (spawned as NodeJS.ErrnoException).code
    return fail(code === 'ENOENT' ? `${plan.command}: command not found (${spawned.message})` : `${plan.command}: ${spawned.message}`)
  }
  const now = Date.now()
  state = { ...state, harness: { pid: child.pid!, start: processStartTime(child.pid!) ?? '', at: now } }
  apply(adapter.started(now), child)
  if (plan.initialInput) child.stdin?.write(plan.initialInput)

  createInterface({ input: child.stdout! }).on('line', (line) => apply(adapter.stdoutLine(line, state, Date.now()), child))
  const stderrTail: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderrTail.push(line)
    if (stderrTail.length > 20) stderrTail.shift()
    record([{ kind: 'stderr', text: line }])
  })

  // Messages sent with `tell` arrive as lines of inbox.jsonl (kernel-written); deliver each once.
  let inboxOffset = 0
  const deliverInbox = () => {
    if (!existsSync(files.inbox)) return
    const size = statSync(files.inbox).size
    if (size <= inboxOffset) return
    const buf = Buffer.alloc(size - inboxOffset)
    const fd = openSync(files.inbox, 'r')
    readSync(fd, buf, 0, buf.length, inboxOffset)
    closeSync(fd)
    const text = buf.toString('utf8')
    const complete = text.lastIndexOf('\n') + 1
    inboxOffset += Buffer.byteLength(text.slice(0, complete))
    for (const line of text.slice(0, complete).split('\n').filter(Boolean)) {
      const msg = JSON.parse(line) as { text: string }
      const r = adapter.deliver(msg.text, state, Date.now())
      if (r.appendToFile !== undefined) appendFileSync(files.shellInbox, r.appendToFile)
      apply(r, child)
    }
  }
  // Messages already there when the runner starts were sent before it: deliver them too.
  deliverInbox()
  const watcher = watch(files.dir, (_e, f) => {
    if (f === 'inbox.jsonl') deliverInbox()
  })
  const inboxTimer = setInterval(deliverInbox, 2000) // a lost watch event costs at most this long

  let stopSource: string | undefined
  const onStop = (sig: NodeJS.Signals) => {
    if (stopSource) return
    stopSource = `stop (${sig})`
    child.kill('SIGTERM')
    setTimeout(() => signalGroup(process.pid, 'SIGKILL'), STOP_GRACE_MS).unref()
  }
  process.on('SIGTERM', onStop)
  process.on('SIGINT', onStop)
  process.on('SIGHUP', onStop)

  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  // Let the last output lines through, unless a leftover child keeps the pipes open.
  await Promise.race([closed, new Promise((r) => setTimeout(r, 500))])
  watcher.close()
  clearInterval(inboxTimer)
  const at = Date.now()
  state = {
    ...state,
    phase: undefined,
    pending: undefined,
    ended: { at, exitCode: exit.code, signal: exit.signal, source: stopSource ?? 'process exit' },
  }
  record([{ kind: 'system', text: `harness exited (${exit.signal ?? `code ${exit.code}`})` }])
  publish()
  return 0
}

function countLines(path: string): number {
  if (!existsSync(path)) return 0
  let n = 0
  for (const b of readFileSync(path)) if (b === 10) n++
  return n
}
