import type {
  ConvDetail,
  ConvDiff,
  ConvView,
  DeckTree,
  LaneView,
  PortOutputs,
  ReapResult,
} from '../../../kernel/port/port.js'
import { unauthorized, unreachable } from './connection.js'
import type { TranscriptPage } from '../../../kernel/domain/transcript.js'

/** The deck's calls, typed with the port's own output types: the browser and the kernel share one contract. */
async function call<T>(path: string, body?: unknown): Promise<T> {
  let res: Response
  try {
    res = await fetch(path, {
      credentials: 'same-origin',
      ...(body === undefined
        ? {}
        : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
  } catch {
    unreachable()
    throw new Error('the kernel does not answer')
  }
  const out = (await res.json().catch(() => ({}))) as { error?: { code?: string; message: string; hint?: string } }
  if (res.status === 401) unauthorized(out.error?.message ?? 'the deck session has ended')
  if (!res.ok) throw new ApiError(out.error?.message ?? `HTTP ${res.status}`, res.status, out.error?.code)
  return out as T
}

/** A refused call: the kernel's message, with the HTTP status and the error code it came with. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message)
  }
}

const conv = (ref: string) => `/api/convs/${encodeURIComponent(ref)}`

export const api = {
  tree: (q: URLSearchParams) => call<DeckTree>(`/api/tree${q.size ? `?${q}` : ''}`),
  lane: (ref: string) => call<LaneView>(`/api/lanes/${encodeURIComponent(ref)}`),
  conv: (ref: string) => call<ConvView>(conv(ref)),
  detail: (ref: string) => call<ConvDetail>(`${conv(ref)}/detail`),
  diff: (ref: string, maxBytes?: number) =>
    call<ConvDiff>(`${conv(ref)}/diff${maxBytes ? `?maxBytes=${maxBytes}` : ''}`),
  parked: (ref: string, patch: string, maxBytes?: number) =>
    call<PortOutputs['convParked']>(
      `${conv(ref)}/parked/${encodeURIComponent(patch)}${maxBytes ? `?maxBytes=${maxBytes}` : ''}`,
    ),
  transcript: (ref: string, cursor?: number) =>
    call<TranscriptPage>(`${conv(ref)}/transcript${cursor === undefined ? '' : `?cursor=${cursor}`}`),
  tell: (ref: string, text: string) => call<PortOutputs['tell']>(`${conv(ref)}/tell`, { text }),
  answer: (ref: string, decision: 'allow' | 'deny', message?: string) =>
    call<PortOutputs['convAnswer']>(`${conv(ref)}/answer`, { decision, message }),
  stop: (ref: string) => call<ConvView>(`${conv(ref)}/stop`, {}),
  archive: (ref: string) => call<ConvView>(`${conv(ref)}/archive`, {}),
  /** POST /api/lanes: the options of svc lane start (no brief file: its text as prompt). */
  launch: (body: Record<string, unknown>) => call<PortOutputs['laneStart']>('/api/lanes', body),
  worker: (body: Record<string, unknown>) => call<PortOutputs['workerRun']>('/api/workers', body),
  reap: (ref: string, park: boolean, keep: boolean) =>
    call<ReapResult>(`/api/lanes/${encodeURIComponent(ref)}/reap`, { park, keep }),
}
