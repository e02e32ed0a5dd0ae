import { httpAttempt, type Attempt } from '../domain/retry.js'

/** Why a request got no answer, on one line: the network's own code where it gives one. */
function failure(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } }
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`
  return err.cause?.code ?? err.cause?.message ?? err.message
}

/** POST a JSON body; the answer (or its absence within the limit) as an attempt. Never throws. */
export async function postJson(
  url: string,
  body: unknown,
  opts: { headers?: Record<string, string>; timeoutMs: number },
): Promise<Attempt> {
  try {
    // Set on a Headers object: a user's Content-Type in any case is replaced, not joined to ours.
    const headers = new Headers(opts.headers)
    headers.set('content-type', 'application/json')
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs),
      redirect: 'manual',
    })
    // The answer's body is not wanted; reading it to the end frees the connection.
    await res.arrayBuffer().catch(() => {})
    return httpAttempt(res.status)
  } catch (e) {
    return { ok: false, error: failure(e, opts.timeoutMs) }
  }
}
