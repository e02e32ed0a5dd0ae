import type {
  ConvDetail,
  ConvDiff,
  ConvView,
  DeckTree,
  LaneView,
  PortOutputs,
  ReapResult,
} from '../../../kernel/port.js'
import type { TranscriptPage } from '../../../kernel/domain/transcript.js'

/** The deck's calls, typed with the port's own output types: the browser and the kernel share one contract. */
async function call<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    credentials: 'same-origin',
    ...(body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const out = (await res.json().catch(() => ({}))) as { error?: { message: string } }
  if (!res.ok) throw new Error(out.error ? out.error.message : `HTTP ${res.status}`)
  return out as T
}

const conv = (ref: string) => `/api/convs/${encodeURIComponent(ref)}`

export const api = {
  tree: (q: URLSearchParams) => call<DeckTree>(`/api/tree${q.size ? `?${q}` : ''}`),
  lane: (ref: string) => call<LaneView>(`/api/lanes/${encodeURIComponent(ref)}`),
  conv: (ref: string) => call<ConvView>(conv(ref)),
  detail: (ref: string) => call<ConvDetail>(`${conv(ref)}/detail`),
  diff: (ref: string, maxBytes?: number) =>
    call<ConvDiff>(`${conv(ref)}/diff${maxBytes ? `?maxBytes=${maxBytes}` : ''}`),
  transcript: (ref: string, cursor?: number) =>
    call<TranscriptPage>(`${conv(ref)}/transcript${cursor === undefined ? '' : `?cursor=${cursor}`}`),
  tell: (ref: string, text: string) => call<PortOutputs['tell']>(`${conv(ref)}/tell`, { text }),
  answer: (ref: string, decision: 'allow' | 'deny', message?: string) =>
    call<PortOutputs['convAnswer']>(`${conv(ref)}/answer`, { decision, message }),
  stop: (ref: string) => call<ConvView>(`${conv(ref)}/stop`, {}),
  reap: (ref: string, park: boolean, keep: boolean) =>
    call<ReapResult>(`/api/lanes/${encodeURIComponent(ref)}/reap`, { park, keep }),
}
