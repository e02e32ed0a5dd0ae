import { createApp } from '../../handlers/app.js'
import { SvcError, type ErrorCode } from '../../kernel/domain/errors.js'
import type { ConvView, DeckTree, KernelPort, LaneView, PortMethod } from '../../kernel/port/port.js'

export const TOKEN = 'a'.repeat(64)
export const HOST = '127.0.0.1:4100'

export interface Call {
  method: string
  input: unknown
}

/** A KernelPort whose methods are the given ones; every call is recorded, and a method not given fails the test. */
export function fakePort(impl: Partial<KernelPort>): { port: KernelPort; calls: Call[] } {
  const calls: Call[] = []
  const port = new Proxy({} as KernelPort, {
    get: (_t, method) =>
      typeof method !== 'string' || method === 'then'
        ? undefined
        : async (input: unknown) => {
            calls.push({ method, input })
            const f = (impl as Record<string, ((i: unknown) => Promise<unknown>) | undefined>)[method]
            if (!f) throw new Error(`the fake port has no ${method}`)
            return f(input)
          },
  })
  return { port, calls }
}

/** A port method that fails as the kernel would. */
export const refuse = (code: ErrorCode, message: string, hint?: string) => async () => {
  throw new SvcError(code, message, hint)
}

export interface Ask {
  method?: string
  body?: unknown
  /** The raw body (sent as is), for bodies that are not JSON. */
  raw?: string
  /** null: no Authorization header. */
  token?: string | null
  host?: string | null
  headers?: Record<string, string>
}

/** The app on a fake port, and a way to ask it (through app.request(), no server): by default a loopback Host and
 * the right bearer token. */
export function harness(impl: Partial<KernelPort> = {}) {
  const { port, calls } = fakePort(impl)
  const app = createApp()
  const ask = (path: string, a: Ask = {}) => {
    const headers: Record<string, string> = { ...a.headers }
    if (a.host !== null) headers.host = a.host ?? HOST
    if (a.token !== null) headers.authorization = `Bearer ${a.token ?? TOKEN}`
    let body: string | undefined
    if (a.raw !== undefined) body = a.raw
    else if (a.body !== undefined) body = JSON.stringify(a.body)
    if (body !== undefined) headers['content-type'] ??= 'application/json'
    return app.request(
      path,
      { method: a.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body },
      { port, token: TOKEN },
    )
  }
  return { ask, calls, port, app }
}

/** Status and JSON body of a response, for one assertion. */
export async function answer(res: Response | Promise<Response>) {
  const r = await res
  return { status: r.status, body: (await r.json()) as unknown }
}

export const err = (code: ErrorCode, message: string) => ({ error: { code, message } })

export const NOW = 1_790_000_000_000

export const laneView = (extra: Partial<LaneView> = {}): LaneView => ({
  id: '7',
  name: 'r1-b-builder-i1',
  parent: '1',
  run: 'r1',
  key: 'b',
  role: 'builder',
  iteration: 1,
  cwd: '/home/u/src/app-lanes/r1-b',
  harness: 'shell',
  model: 'model-builder',
  cost: { usd: 0.25, estimated: false },
  createdAt: NOW,
  archived: false,
  activity: 'working',
  evidence: { source: 'process start', at: NOW },
  report: { seq: 1, status: 'done', at: NOW + 1000 },
  branch: 'r1/b',
  git: {
    branch: 'r1/b',
    head: 'abcdef0123456789',
    upstream: 'origin/r1/b',
    ahead: 0,
    behind: 0,
    dirty: false,
    asOf: NOW,
  },
  ...extra,
})

export const convView = (extra: Partial<ConvView> = {}): ConvView => ({
  id: '1',
  name: 'c1',
  kind: 'root',
  harness: 'none',
  cwd: '/home/u/src/app',
  createdAt: NOW,
  archived: false,
  activity: 'starting',
  evidence: { source: 'launch', at: NOW },
  ...extra,
})

export const emptyTree = (): DeckTree => ({
  roots: [],
  conversations: {},
  lanes: {},
  workers: {},
  costPerRun: {},
  costPerOrchestrator: {},
  runs: [],
  counts: {},
  chains: {},
  inbox: [],
})

export type { PortMethod }
