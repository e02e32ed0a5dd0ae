import { chmodSync, mkdirSync, symlinkSync, lstatSync, unlinkSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'esbuild'
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

// The svc program (the CLI, the kernel, the runners) as one bundle in dist/bundle/, split at its lazy imports so a
// verb still loads only its own code. A kernel or runner loaded from one bundle starts in about half the processor
// time of one loaded from a hundred modules. The bundle replaces dist/cli/main.js, which then only imports it; the
// modules beside it stay for the tests that load them in their own process. A lane's runner has an entry of its own
// (cli/runner-main.ts), which shares the bundle's chunks and loads none of the CLI's.
const bundleDir = join(root, 'dist', 'bundle')
const runnerMain = join(dirname(main), 'runner-main.js')
await build({
  entryPoints: [main, runnerMain],
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  outdir: bundleDir,
  external: writtenForRequire().filter((name) => name !== 'yaml'),
  // yaml is joined into the bundle from its own module build: Node loads its require() build file by file, about
  // 40 ms of processor time for every kernel that reads a YAML file, against 8 ms for the same code in one chunk.
  alias: { yaml: join(root, 'node_modules', 'yaml', 'browser', 'dist', 'index.js') },
  logLevel: 'warning',
  plugins: [ownUrls(join(root, 'dist'), bundleDir), http1Only()],
})
writeFileSync(main, "#!/usr/bin/env node\nimport '../bundle/main.js'\n")
chmodSync(main, 0o755)
writeFileSync(runnerMain, "import '../bundle/runner-main.js'\n")

/** A module that finds a file beside itself (`new URL('../x', import.meta.url)`) finds it from where it was built,
 * not from the bundle's folder: each module's own URL is the bundle's, moved to the module's place in dist/. */
function ownUrls(dist: string, outdir: string): Plugin {
  return {
    name: 'own-urls',
    setup(b) {
      b.onLoad({ filter: new RegExp(`^${dist.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/.*\\.js$`) }, (a) => {
        const text = readFileSync(a.path, 'utf8')
        const own = `new URL(${JSON.stringify(relative(outdir, a.path))}, import.meta.url).href`
        return { contents: text.replaceAll('import.meta.url', own), loader: 'js' }
      })
    },
  }
}

/** The kernel serves HTTP/1.1 only: the HTTP adapter's checks for an HTTP/2 request (`instanceof Http2ServerRequest`)
 * are given a class no request is an instance of, so that no process of the bundle loads Node's HTTP/2 module (about
 * 10 ms of processor time at every kernel's start). */
function http1Only(): Plugin {
  return {
    name: 'http1-only',
    setup(b) {
      b.onResolve({ filter: /^node:http2$/ }, () => ({ path: 'http2', namespace: 'http1-only' }))
      b.onLoad({ filter: /.*/, namespace: 'http1-only' }, () => ({
        contents: 'export class Http2ServerRequest {}\nexport const constants = { NGHTTP2_NO_ERROR: 0 }\n',
        loader: 'js',
      }))
    },
  }
}

/** The dependencies written for require() (sade; yaml too, but it ships a module build as well): left to Node,
 * which gives their exports names as it does for the modules beside the bundle (in a bundle such a package has a
 * default export only). */
function writtenForRequire(): string[] {
  const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  return Object.keys(manifest(root).dependencies).filter(
    (name) => manifest(join(root, 'node_modules', name)).type !== 'module',
  )
}
