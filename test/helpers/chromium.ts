import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from './home.js'

/** The headless Chromium that `npm install` brings: a devDependency ships it compressed, and it is unpacked once per
 * version into node_modules/.cache (the package unpacks into the temporary directory it is given, so it is given one
 * there, never /tmp). Nothing is installed by hand and nothing is downloaded. */
const PACKAGE = '@sparticuz/chromium'

const version = () =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', ...PACKAGE.split('/'), 'package.json'), 'utf8')).version as string

/** The directory holding the unpacked browser, its fonts and its graphics libraries. */
export const chromiumDir = () => join(ROOT, 'node_modules', '.cache', `svc-chromium-${version()}`)

/** The browser's executable, unpacked on first use. A half-unpacked tree is never taken for a whole one: the package
 * unpacks into a staging directory, which is renamed into place when it is complete. */
export async function chromiumExecutable(): Promise<string> {
  const dir = chromiumDir()
  const exe = join(dir, 'chromium')
  if (existsSync(exe)) return exe
  const staging = `${dir}.unpacking-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  const script =
    `const { default: c } = await import(${JSON.stringify(PACKAGE)}); process.stdout.write(await ` +
    `c.executablePath())`
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: staging },
  })
  if (stdout !== join(staging, 'chromium'))
    throw new Error(`${PACKAGE} unpacked the browser to ${stdout}, not into ${staging}`)
  try {
    renameSync(staging, dir)
  } catch (e) {
    // Another suite unpacked the same version meanwhile: keep its copy.
    rmSync(staging, { recursive: true, force: true })
    if (!existsSync(exe)) throw e
  }
  return exe
}

/** Flags for a headless browser as root on a machine with no network but the loopback: no sandbox (root), and no
 * background connections, which the closed network would refuse many at a time. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
]

/** How many times a screenshot is asked for, and how long to let the browser draw between two askings. */
const SHOT_ATTEMPTS = 5
const SHOT_PAUSE_MS = 250

/** A screenshot of the page, asked again (up to SHOT_ATTEMPTS times, a moment apart) when the browser had no frame
 * to give yet: under the load of a full test run Chromium now and then answers "Unable to capture screenshot", and
 * draws the same page when asked again a little later. Any other error is thrown at once. */
export async function screenshotOf(
  page: { screenshot(o: { type?: 'png'; path?: string; fullPage?: boolean }): Promise<Buffer> },
  o: { path?: string; fullPage?: boolean } = {},
  pauseMs = SHOT_PAUSE_MS,
): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.screenshot({ type: 'png', ...o })
    } catch (e) {
      if (attempt === SHOT_ATTEMPTS || !String((e as Error)?.message).includes('Unable to capture screenshot')) throw e
      await new Promise((r) => setTimeout(r, pauseMs * attempt))
    }
  }
}
