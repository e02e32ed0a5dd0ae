import type { KernelPort } from '../kernel/port/port.js'

/** What a handler gets from its host: the kernel (in process or over HTTP) and the token callers must show. */
export interface HandlerEnv {
  Bindings: { port: KernelPort; token: string }
}
