import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumExecutable, screenshotOf } from './chromium.js'
import { ROOT, TestHome } from './home.js'
import { setupProject, type Setup } from './project.js'
import { gates, kernelApi } from '../e2e/api-kit.js'

/** What the deck's browser suites stand on: a test home with a project and a kernel, the headless Chromium npm
 * installs (driven by playwright-core), and screenshots in test-artifacts/screenshots/. */
export const SHOTS = join(ROOT, 'test-artifacts', 'screenshots')
export const WAIT = { timeout: 20_000 }

export interface DeckWorld {
  h: TestHome
  s: Setup
  api: ReturnType<typeof kernelApi>
  g: ReturnType<typeof gates>
  browser: BrowserContext
  page: Page
  /** The browser this world launched (set once it has one). */
  chromium?: Browser
}

/** A new document of the same site reuses its frame's renderer objects instead of making new ones: a page load then
 * costs the browser about a quarter less processor time, and the suites load a page some seventy times. A page sees
 * no difference. (Only here: the deck benchmark keeps the browser as it comes.) */
const DECK_ARGS = ['--disable-features=RenderDocument']

/** Each world launches its own browser. One shared by the suites of the group's process was tried: it cost no less
 * processor time than a launch per suite, and a suite's browser then outlived its home. */
const launchBrowser = async (): Promise<Browser> =>
  chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    args: [...CHROMIUM_ARGS, ...DECK_ARGS],
  })

/** `env`: more for the test home's kernel and programs (a test's timings). */
export async function openDeckWorld(w: DeckWorld, name: string, env: Record<string, string> = {}): Promise<void> {
  try {
    const browser = (w.chromium = await launchBrowser())
    w.h = new TestHome(name)
    w.h.extraEnv = { PATH: `${join(ROOT, 'fixtures', 'bin')}:${process.env.PATH}`, FAKE_NODE: process.execPath, ...env }
    w.s = await setupProject(w.h)
    w.api = kernelApi(w.h)
    w.g = gates(w.h)
    mkdirSync(SHOTS, { recursive: true })
    w.browser = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    w.page = await w.browser.newPage()
  } catch (e) {
    // A suite whose `before` throws has its tests counted as failed, but the runner prints nothing of why.
    console.error(`${name}: the deck world could not be opened: ${(e as Error)?.stack ?? e}`)
    throw e
  }
}

export async function closeDeckWorld(w: DeckWorld): Promise<void> {
  try {
    await w.browser?.close()
  } finally {
    await w.chromium?.close().catch(() => {})
    await w.h?.stop()
  }
}

/** Launch a lane of run r1 from the project's root conversation. */
export const launchLane = (w: DeckWorld, body: Record<string, unknown>) =>
  w.api.post('/api/lanes', { run: 'r1', conversation: w.s.root, ...body })
export const shot = (w: DeckWorld, name: string) => screenshotOf(w.page, { path: join(SHOTS, name), fullPage: true })

/** A one-time link to the deck, as `svc deck` prints it (its dispatch run in this process: a Node start saved). */
export const deckLink = async (w: DeckWorld) =>
  JSON.parse(await w.h.ok(['deck', '--json', '--no-open'], { here: true })).url as string

/** A deck world whose browser has logged in. */
export async function deckLogin(w: DeckWorld, name: string): Promise<void> {
  await openDeckWorld(w, name)
  await w.page.goto(await deckLink(w))
}

/** A conversation of the tests' claude (fixtures/bin) whose model asks for a permission, then a question, then a
 * plan (`svc conv new` run in this process). */
export const askingConv = async (w: DeckWorld) =>
  (
    await w.h.ok(
      [
        ...['conv', 'new', '--harness', 'claude', '--model', 'claude-test-1'],
        ...['--cwd', w.h.home, '--prompt', 'scenario:asks set up storage'],
      ],
      { here: true },
    )
  ).trim()
