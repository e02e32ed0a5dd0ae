#!/usr/bin/env node
// Start-up is on every agent's hot path: `--version` answers before anything else is loaded.
const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { VERSION } = await import('../kernel/io/version.js')
  process.stdout.write(`svc ${VERSION}\n`)
} else {
  // Whatever escapes (an error event nobody listened to, a rejection nobody caught) is still one line, never a
  // stack trace; a reader that closed our output early (svc lane list | head -1) is no error at all.
  const crash = async (e: unknown) => {
    const [{ printError }, { processIo }] = await Promise.all([import('./dispatch.js'), import('./io.js')])
    process.exit(printError(processIo(), e))
  }
  process.on('uncaughtException', crash)
  process.on('unhandledRejection', crash)
  process.stdout.on('error', (e: NodeJS.ErrnoException) =>
    e.code === 'EPIPE' ? process.exit(process.exitCode ?? 0) : crash(e),
  )
  const { dispatch } = await import('./dispatch.js')
  process.exitCode = await dispatch(argv)
}
