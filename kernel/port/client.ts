import { SvcError, isErrorCode } from '../domain/errors.js'
import { PORT_METHODS } from './methods.js'
import type { KernelPort, PortInput, PortMethod, PortOutputs } from './port.js'

/** Sends one JSON request and returns the status and the parsed body. */
export type Transport = (path: string, body: unknown) => Promise<{ status: number; body: unknown }>

/** One call of the port: the method's input in, its output back, or the SvcError the kernel answered with. */
export type PortCall = <M extends PortMethod>(method: M, input: PortInput<M>) => Promise<PortOutputs[M]>

/** A KernelPort whose every method is `call` with the method's name: the one typed client, generated from the
 * names of the port's schema table. */
export function portClient(call: PortCall): KernelPort {
  // The one place a port is assembled from its names: the entries hold one function per method by construction.
  return Object.fromEntries(PORT_METHODS.map((m) => [m, (input: never) => call(m, input)])) as KernelPort
}

/** A call as one POST to /rpc/<method>; an error body becomes the same SvcError the kernel threw. */
export const rpcCall =
  (transport: Transport): PortCall =>
  async (method, input) => {
    const { status, body } = await transport(`/rpc/${method}`, input ?? {})
    if (status >= 200 && status < 300) return body as PortOutputs[typeof method]
    const err = (body as { error?: { code?: unknown; message?: string; hint?: string } })?.error
    throw new SvcError(
      isErrorCode(err?.code) ? err.code : 'internal',
      err?.message ?? `kernel answered HTTP ${status}`,
      err?.hint,
    )
  }

/** A KernelPort over HTTP, for callers in other processes (the CLI, handlers on workerd). */
export const remotePort = (transport: Transport): KernelPort => portClient(rpcCall(transport))
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
