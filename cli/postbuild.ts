import { chmodSync, mkdirSync, symlinkSync, lstatSync, unlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join, relative } from 'node:path'

// The bin must be executable, and `npx --no-install svc` must find it in this checkout.
const main = fileURLToPath(new URL('./main.js', import.meta.url))
chmodSync(main, 0o755)
const root = join(dirname(main), '..', '..')
const binDir = join(root, 'node_modules', '.bin')
mkdirSync(binDir, { recursive: true })
const link = join(binDir, 'svc')
try {
  lstatSync(link)
  unlinkSync(link)
} catch {}
symlinkSync(relative(binDir, main), link)

// The deck's browser code: tsc compiled handlers/deck/browser/ with the project; its modules are joined into one
// module, which the kernel hands to the handlers for /deck/client.js (one request, and the same on workerd).
const { build } = await import('esbuild')
const deckDir = join(root, 'dist', 'handlers', 'deck')
await build({
  entryPoints: [join(deckDir, 'browser', 'main.js')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  outfile: join(deckDir, 'client.bundle.js'),
  logLevel: 'warning',
})

// The host runner (kernel/runner/host-runner.ts) as one file with what it imports: the kernel ships it to a host over
// ssh, so a host needs Node and nothing installed from a registry.
await build({
  entryPoints: [join(root, 'dist', 'kernel', 'runner', 'host-runner.js')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  outfile: join(root, 'dist', 'kernel', 'runner', 'host-runner.mjs'),
  logLevel: 'warning',
})
