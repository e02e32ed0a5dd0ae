#!/usr/bin/env node
// Start-up is on every agent's hot path: `--version` answers before anything else is loaded.
const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { VERSION } = await import('../kernel/version.js')
  process.stdout.write(`svc ${VERSION}\n`)
} else {
  const { dispatch } = await import('./dispatch.js')
  process.exitCode = await dispatch(argv)
}
