import { request } from 'node:http'
import { SvcError } from '../kernel/domain/errors.js'
import type { KernelFile } from '../kernel/io/kernel-file.js'
import type { Transport } from '../kernel/port/client.js'
import { procStat } from '../kernel/io/procs.js'
import { testTiming } from '../kernel/io/test-timing.js'

/** How long a call waits for its answer before the kernel is asked whether it still answers at all, and how long
 * that question may take. A stopped kernel (SIGSTOP, a hung event loop) thus ends any call within both. */
const BEAT_MS = testTiming('KERNEL_BEAT', 3_000)
const PROBE_MS = testTiming('KERNEL_PROBE', 10_000)
/** The longest any call may take beyond the wait it asked for (`timeoutMs`), even from a kernel that answers the
 * probe: a launch or a reap that waits for a harness to exit takes well under it. */
const CALL_LIMIT_MS = testTiming('KERNEL_CALL_LIMIT', 300_000)

const quieted = new WeakSet<object>()

/** HTTP over node:http (quicker to load than fetch, which matters on every CLI call). Every call has a deadline:
 * while it waits, the kernel is asked on a connection of its own whether it still answers; one that does not ends
 * the call with one line naming it and what to do. A request sent on a kept-alive connection that the kernel closed
 * as idle in the same moment is reset before the kernel read it: that one is sent again, once, on a new connection. */
export const httpTransport =
  (k: KernelFile): Transport =>
  (path, body) =>
    watched(k, path, body)

function watched(k: KernelFile, path: string, body: unknown): ReturnType<Transport> {
  const asked = (body as { timeoutMs?: unknown })?.timeoutMs
  const limit = CALL_LIMIT_MS + (typeof asked === 'number' ? asked : 0)
  const call = send(k, path, body, { mayResend: true, limitMs: limit })
  let beat: NodeJS.Timeout | undefined
  let done = false
  const alive = new Promise<never>((_resolve, reject) => {
    const probe = () =>
      send(k, '/rpc/kernelStatus', {}, { mayResend: false, limitMs: PROBE_MS, fresh: true }).promise.then(
        (r) => {
          if (done) return
          if (r.status === 200) beat = setTimeout(probe, BEAT_MS)
          else reject(unresponsive(k, `it answered a status check with HTTP ${r.status}`))
        },
        // A kernel that went away fails the call itself; one that stays silent does not.
        (e: SvcError) => {
          if (!done && (e as { timedOut?: boolean }).timedOut) reject(unresponsive(k))
        },
      )
    beat = setTimeout(probe, BEAT_MS)
  })
  alive.catch(() => {})
  return Promise.race([call.promise, alive]).finally(() => {
    done = true
    clearTimeout(beat)
    call.abort()
  })
}

/** The error of a kernel that holds kernel.json but gives no answer, with what to do about it. */
export function unresponsive(k: KernelFile, why = `it gave no answer to a status check within ${PROBE_MS / 1000} s`) {
  const stopped = procStat(k.pid)?.state === 'T'
  const err = new SvcError(
    'unavailable',
    `the kernel on port ${k.port} (pid ${k.pid}) stopped answering: ${stopped ? 'its process is stopped' : why}`,
    stopped
      ? `resume it with kill -CONT ${k.pid}, or end it with kill -KILL ${k.pid} (the next svc call starts a new kernel)`
      : `try again; if it still does not answer, end it with kill ${k.pid} (the next svc call starts a new kernel)`,
  )
  return Object.assign(err, { unresponsive: true })
}

interface Sent {
  promise: ReturnType<Transport>
  abort: () => void
}

function send(
  k: KernelFile,
  path: string,
  body: unknown,
  opts: { mayResend: boolean; limitMs: number; fresh?: boolean },
): Sent {
  let req: ReturnType<typeof request> | undefined
  let timer: NodeJS.Timeout | undefined
  let settled = false
  const promise = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const data = JSON.stringify(body)
    const finish = (f: () => void) => {
      settled = true
      clearTimeout(timer)
      f()
    }
    timer = setTimeout(() => {
      if (settled) return
      const err = Object.assign(
        new SvcError(
          'unavailable',
          `the kernel on port ${k.port} (pid ${k.pid}) gave no answer within ${Math.round(opts.limitMs / 1000)} s`,
          `try again; if it still does not answer, end it with kill ${k.pid} (the next svc call starts a new kernel)`,
        ),
        { timedOut: true },
      )
      finish(() => reject(err))
      req?.destroy()
    }, opts.limitMs)
    req = request(
      {
        host: '127.0.0.1',
        port: k.port,
        path,
        method: 'POST',
        // The probe must not queue behind the call it checks on a kept-alive connection.
        ...(opts.fresh ? { agent: false } : {}),
        headers: {
          authorization: `Bearer ${k.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let parsed: unknown
          try {
            parsed = JSON.parse(text)
          } catch {
            parsed = {
              error: {
                code: 'internal',
                message: `kernel answered HTTP ${res.statusCode} with a body that is not JSON`,
              },
            }
          }
          finish(() => resolve({ status: res.statusCode ?? 0, body: parsed }))
        })
        res.on('error', (e) => finish(() => reject(e)))
      },
    )
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return
      if (opts.mayResend && req!.reusedSocket && e.code === 'ECONNRESET') {
        const again = send(k, path, body, { ...opts, mayResend: false })
        finish(() => again.promise.then(resolve, reject))
      } else finish(() => reject(transportError(k, e)))
    })
    // A kernel that refuses a request (a body over its limit) answers and closes before the body is all sent: the
    // write then fails on the socket after the answer was taken, which is no error of this call.
    req.on('socket', (s) => {
      if (quieted.has(s)) return // a kept-alive socket carries many requests: one listener is enough
      quieted.add(s)
      s.on('error', () => {})
    })
    req.end(data)
  })
  return {
    promise,
    abort: () => {
      clearTimeout(timer)
      if (settled) return
      settled = true // an aborted call is not sent again
      req?.destroy()
    },
  }
}

/** A refused connection means the request reached no kernel: it is marked so that it may be sent again. */
function transportError(k: KernelFile, e: NodeJS.ErrnoException): SvcError {
  const err = Object.assign(new SvcError('unavailable', `kernel on port ${k.port} did not answer: ${e.message}`), {
    errno: e.code,
  })
  if (e.code === 'ECONNREFUSED') Object.assign(err, { notDelivered: true })
  return err
}
