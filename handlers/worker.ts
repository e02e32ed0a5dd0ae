import { createApp } from './app.js'
import { fetchTransport, remotePort } from '../kernel/port/client.js'

/** What wrangler.toml binds: where the kernel listens and its token. Callers of this worker show the same token. */
interface WorkerEnv {
  KERNEL_URL: string
  KERNEL_TOKEN: string
}

const app = createApp()

/** The handlers on workerd: the same app the kernel serves, with a KernelPort over HTTP to the kernel. */
export default {
  fetch(request: Request, env: WorkerEnv, ctx: unknown) {
    if (!env.KERNEL_URL || !env.KERNEL_TOKEN)
      return Response.json(
        {
          error: {
            code: 'unavailable',
            message: 'KERNEL_URL and KERNEL_TOKEN must be set (wrangler dev --var KERNEL_URL:… --var KERNEL_TOKEN:…)',
          },
        },
        { status: 503 },
      )
    const port = remotePort(fetchTransport(env.KERNEL_URL, env.KERNEL_TOKEN))
    return app.fetch(request, { port, token: env.KERNEL_TOKEN }, ctx as never)
  },
}
