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
