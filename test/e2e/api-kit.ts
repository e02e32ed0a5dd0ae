import { request } from 'node:http'
import { writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import type { TestHome } from '../helpers/home.js'

export interface Answer {
  status: number
  body: any
}

/** The kernel's HTTP API as a client sees it: HTTP on 127.0.0.1 with the token of kernel.json. */
export function kernelApi(h: TestHome) {
  const k = h.kernelFile()
  if (!k) throw new Error('no kernel is running for this home')
  const base = `http://127.0.0.1:${k.port}`
  const call = async (
    path: string,
    o: { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers }
    if (o.token !== null) headers.authorization = `Bearer ${o.token ?? k.token}`
    if (o.body !== undefined) headers['content-type'] = 'application/json'
    const data = o.body === undefined ? undefined : JSON.stringify(o.body)
    if (data !== undefined) headers['content-length'] = String(Buffer.byteLength(data))
    const res = await rawRequest(k.port, {
      method: o.method ?? (data !== undefined ? 'POST' : 'GET'),
      path,
      headers: { host: `127.0.0.1:${k.port}`, ...headers },
      body: data,
    })
    const text = res.text
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: res.status, body }
  }
  return {
    base,
    port: k.port,
    token: k.token,
    call,
    get: (path: string) => call(path),
    post: (path: string, body: unknown) => call(path, { body }),
  }
}

/** One request with exactly these headers, Host included (fetch sets Host itself and will not send another), on a
 * connection of its own: a kept-alive one could be closed by the kernel as idle while this process was busy (a
 * synchronous git call), and the request reset. */
export function rawRequest(
  port: number,
  o: { method?: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: o.method ?? 'GET',
        path: o.path,
        headers: o.headers,
        setHost: false,
        agent: false,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })
}

/** Shell gates: a lane script waits at `wait(n)` until the test calls `open(n)`. */
export function gates(h: TestHome) {
  return {
    wait: (n: string) => `while [ ! -e ${h.home}/go-${n} ]; do sleep 0.05; done`,
    open: (n: string) => writeFileSync(join(h.home, `go-${n}`), ''),
    opened: (n: string) => existsSync(join(h.home, `go-${n}`)),
  }
}

/** A critic script: writes a verdict file with these defects, files its done report with the verdict, and leaves
 * its worktree clean. */
export const criticScript = (verdict: string, defects: string[], body: string) =>
  `printf '%s' '${JSON.stringify({ defects: defects.map((d) => ({ defect: d })) })}' > verdict.json
svc lane report --stdin --verdict ${verdict} --verdict-file verdict.json <<'EOF'
${body}
EOF
rm verdict.json
`

/** Reads server-sent events from a streaming response until `pick` returns a value (or the limit passes). */
export async function readEvents<T>(
  res: Response,
  pick: (e: { event: string; data: string; id?: string }) => T | undefined,
  limitMs = 20_000,
): Promise<{ found?: T; seen: { event: string; data: string; id?: string }[] }> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const seen: { event: string; data: string; id?: string }[] = []
  let buffer = ''
  const deadline = Date.now() + limitMs
  try {
    while (Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), Math.max(1, deadline - Date.now()))))
      const chunk = await Promise.race([reader.read(), late]).finally(() => clearTimeout(timer))
      if (chunk === 'late' || chunk.done) break
      buffer += decoder.decode(chunk.value)
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const fields = Object.fromEntries(
          block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
        )
        const e = { event: fields.event ?? 'message', data: fields.data ?? '', ...(fields.id ? { id: fields.id } : {}) }
        seen.push(e)
        const found = pick(e)
        if (found !== undefined) return { found, seen }
      }
    }
    return { seen }
  } finally {
    await reader.cancel().catch(() => {})
  }
}
