import { SvcError } from '../kernel/domain/errors.js'
import { serveLanes } from '../kernel/runner/local-runner.js'
import { resolveHome } from './connect.js'
import { processIo } from './io.js'

// The home's runner: `node runner-main.js serve` does what `svc runner serve` does, loading only the runner's own
// code (no verb table, no parser, no client). The kernel starts it when none answers on the home's runner socket,
// and it pays for what it loads: in memory for as long as it runs, in processor time at its start (npm run bench --
// local-lanes).
const fail = async (e: unknown) => {
  const { printError } = await import('./dispatch.js')
  process.exit(printError(processIo(), e))
}
process.on('uncaughtException', fail)
process.on('unhandledRejection', fail)
try {
  if (process.argv[2] !== 'serve') throw new SvcError('usage', 'the runner is started by the kernel, as `serve`')
  process.exitCode = await serveLanes(resolveHome(processIo()))
} catch (e) {
  await fail(e)
}
