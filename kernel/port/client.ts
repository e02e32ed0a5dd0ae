import { SvcError, isErrorCode } from '../domain/errors.js'
import type { KernelPort } from './port.js'

/** Sends one JSON request and returns the status and the parsed body. */
export type Transport = (path: string, body: unknown) => Promise<{ status: number; body: unknown }>

/** A KernelPort over HTTP, for callers in other processes (the CLI, handlers on workerd). Mechanical: one POST
 * to /rpc/<method> per call; an error body becomes the same SvcError the kernel threw. */
export function remotePort(transport: Transport): KernelPort {
  // A proxy rather than a table: callers pay for no schema library at start-up; the kernel validates.
  return new Proxy({} as KernelPort, {
    get: (_t, method) =>
      typeof method !== 'string' || method === 'then'
        ? undefined
        : async (input: unknown) => {
            const { status, body } = await transport(`/rpc/${method}`, input ?? {})
            if (status >= 200 && status < 300) return body
            const err = (body as { error?: { code?: unknown; message?: string; hint?: string } })?.error
            throw new SvcError(
              isErrorCode(err?.code) ? err.code : 'internal',
              err?.message ?? `kernel answered HTTP ${status}`,
              err?.hint,
            )
          },
  })
}

/** A transport over fetch (workerd, browsers). */
export const fetchTransport =
  (baseUrl: string, token: string, f: typeof fetch = fetch): Transport =>
  async (path, body) => {
    const res = await f(new URL(path, baseUrl).toString(), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = {
        error: { code: 'internal', message: `kernel answered HTTP ${res.status} with a body that is not JSON` },
      }
    }
    return { status: res.status, body: parsed }
  }
