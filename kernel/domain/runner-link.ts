/** The home's runner (kernel/runner/local-runner.ts) and the kernel speak one JSON line each way on the runner's
 * socket: a request, then its answer. */

/** Start this conversation's lane (its launch.json written), with the environment the kernel gives it (its key
 * among it). */
export interface RunnerRequest {
  t: 'start'
  name: string
  env: Record<string, string>
}

/** The lane's supervisor (what the kernel knows as the lane's runner), or none when the lane failed to start (its
 * state says why); a problem when the request itself is refused. */
export type RunnerAnswer = { t: 'started'; runner?: { pid: number; start: string } } | { t: 'refused'; problem: string }

/** A request line as the runner reads it, or what is wrong with it. */
export function parseRunnerRequest(line: string): RunnerRequest | string {
  let m: unknown
  try {
    m = JSON.parse(line)
  } catch {
    return 'not a JSON line'
  }
  const r = m as Partial<RunnerRequest> | null
  if (r?.t !== 'start' || typeof r.name !== 'string' || !/^[\w.-]+$/.test(r.name))
    return 'expected {"t":"start","name":<conversation>,"env":{...}}'
  if (typeof r.env !== 'object' || r.env === null || Object.values(r.env).some((v) => typeof v !== 'string'))
    return 'env must be an object of strings'
  return r as RunnerRequest
}

/** An answer line as the kernel reads it, or what is wrong with it. */
export function parseRunnerAnswer(line: string): RunnerAnswer | string {
  let m: unknown
  try {
    m = JSON.parse(line)
  } catch {
    return `the runner answered with no JSON line: ${line.slice(0, 200)}`
  }
  const a = m as Partial<{ t: string; runner: { pid: unknown; start: unknown }; problem: unknown }> | null
  if (a?.t === 'refused' && typeof a.problem === 'string') return { t: 'refused', problem: a.problem }
  if (a?.t !== 'started') return `the runner answered what is no answer: ${line.slice(0, 200)}`
  if (a.runner === undefined) return { t: 'started' }
  const { pid, start } = a.runner ?? {}
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 1 || typeof start !== 'string')
    return `the runner named no process: ${line.slice(0, 200)}`
  return { t: 'started', runner: { pid, start } }
}
