import { createConnection } from 'node:net'
import { createInterface } from 'node:readline'
import { parseRunnerAnswer, type RunnerAnswer, type RunnerRequest } from '../domain/runner-link.js'

/** One request to the home's runner on its socket and its answer; `absent` when no runner listens there (none
 * runs, or it is exiting, or it ended before it answered: then what it had started ended with it); an error text
 * when it answered nothing usable within `limitMs`. */
export function askRunner(
  socket: string,
  request: RunnerRequest,
  limitMs: number,
): Promise<RunnerAnswer | 'absent' | { error: string }> {
  return new Promise((resolve) => {
    const s = createConnection(socket)
    let settled = false
    const settle = (a: RunnerAnswer | 'absent' | { error: string }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      s.destroy()
      resolve(a)
    }
    const timer = setTimeout(() => settle({ error: `the runner answered nothing within ${limitMs} ms` }), limitMs)
    s.once('connect', () => s.write(JSON.stringify(request) + '\n'))
    s.on('error', () => settle('absent'))
    const lines = createInterface({ input: s })
    lines.on('error', () => settle('absent')) // the socket's error, passed on
    lines.once('line', (line) => {
      const a = parseRunnerAnswer(line)
      if (typeof a === 'string') return settle({ error: a })
      settle(a.t === 'refused' && a.problem === 'the runner is exiting' ? 'absent' : a)
    })
    s.once('close', () => settle('absent'))
  })
}
