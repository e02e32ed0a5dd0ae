import type { KernelPort } from '../kernel/port/port.js'

/** What a handler gets from its host: the kernel (in process or over HTTP) and the token callers must show. */
export interface HandlerEnv {
  /** `heartbeatMs`: how often the event stream says it is alive when nothing changes (a test sets it lower). */
  Bindings: { port: KernelPort; token: string; heartbeatMs?: number }
}
