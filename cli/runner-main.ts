import { SvcError } from '../kernel/domain/errors.js'
import { runRunner } from '../kernel/runner/runner.js'
import { resolveHome } from './connect.js'
import { processIo } from './io.js'

// A lane's runner: `node runner-main.js <name>` does what `svc runner <name>` does, loading only the runner's own
// code (no verb table, no parser, no client). The kernel starts one per lane, and each pays for what it loads: in
// memory for as long as it runs, in processor time at its start (npm run bench -- local-lanes).
const fail = async (e: unknown) => {
  const { printError } = await import('./dispatch.js')
  process.exit(printError(processIo(), e))
}
process.on('uncaughtException', fail)
process.on('unhandledRejection', fail)
try {
  const name = process.argv[2]
  if (!name) throw new SvcError('usage', 'a runner needs the name of its conversation')
  process.exitCode = await runRunner(resolveHome(processIo()), name)
} catch (e) {
  await fail(e)
}
