import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { realAdapters, type Adapters } from '../../kernel/io/adapters.js'
import { convNew, createConversation } from '../../kernel/services/conversations.js'
import { GitFactsCache } from '../../kernel/services/git-facts.js'
import { reapDirectory } from '../../kernel/services/lane-reap.js'
import { inNewDirectory } from '../../kernel/services/lane-start-dir.js'
import { settleInterruptedLaunches } from '../../kernel/services/launch-intents.js'
import { scratchDir } from '../helpers/home.js'
import { kernelContextOn } from '../helpers/memory-world.js'

// Services reach the clock and the test fault hook through the kernel's context (KernelContext.io): a test gives
// them its own, and the records the services write, and the hook's calls, show they were used. Real files, in a
// scratch home.

const BASE = scratchDir('io-context')
let n = 0
const T0 = 1_800_000_000_000
const LAUNCH_ID = '00000000-0000-4000-8000-000000000017'

/** A kernel context on a fresh home, with a clock the test sets and a fault hook that records its calls. */
async function context(opts: { failFlags?: string[] } = {}) {
  const made = join(BASE, `h${++n}`)
  mkdirSync(made, { recursive: true, mode: 0o700 })
  const home = realpathSync(made)
  const time = { now: T0 }
  const calls: string[] = []
  const real = realAdapters()
  const io: Adapters = {
    ...real,
    clock: { now: () => time.now },
    ids: { ...real.ids, uuid: () => LAUNCH_ID },
    fault: {
      point: (step) => void calls.push(`point ${step}`),
      flag: (name) => (calls.push(`flag ${name}`), opts.failFlags?.includes(name) ?? false),
    },
  }
  const ctx = await kernelContextOn(home, io)
  return { ctx, home, time, calls }
}

/** A play lane launched the way lane start launches one (inNewDirectory), driven by no harness. */
async function playLane(c: Awaited<ReturnType<typeof context>>) {
  const lanesRoot = join(c.home, 'lanes')
  const dir = join(lanesRoot, 'r1-p-play-i1')
  const project = { key: 'p', entry: { path: c.home }, checkout: c.home, lanesRoot }
  return inNewDirectory(c.ctx, project, { role: 'play' }, dir, undefined, (made) =>
    createConversation(c.ctx, {
      fallbackName: () => 'r1-p-play-i1',
      lane: { run: 'r1', key: 'p', role: 'play', dir: 'r1-p-play-i1', root: lanesRoot, iteration: 1, ...made },
      harness: 'none',
      cwd: dir,
      play: true,
    }),
  )
}

test.after(() => rmSync(BASE, { recursive: true, force: true }))

test('a conversation is recorded at the time of the injected clock', async () => {
  const c = await context()
  c.time.now = T0 + 5
  const view = await convNew(c.ctx, { harness: 'none', cwd: c.home })
  assert.is(c.ctx.store.get(view.id)!.createdAt, T0 + 5)
  assert.is(view.createdAt, T0 + 5)
})

test('a launch passes the injected fault hook at its named points, in order, and takes its id from the injected ids', async () => {
  const c = await context()
  await settleInterruptedLaunches(c.ctx)
  const rec = await playLane(c)
  assert.equal(c.calls, ['point launch-intent', 'point launch-recorded'])
  assert.is(rec.createdAt, T0)
  assert.is(rec.lane!.made!.launch, LAUNCH_ID)
  assert.ok(existsSync(rec.cwd))
})

test('the reap asks the injected fault hook, and records its steps at the injected time', async () => {
  const c = await context()
  await settleInterruptedLaunches(c.ctx)
  const rec = await playLane(c)
  c.calls.length = 0
  c.time.now = T0 + 60_000
  const done = await reapDirectory(c.ctx, new GitFactsCache(c.ctx.io), rec, {}, async () => 'view')
  assert.equal(c.calls, ['flag ARCHIVE'])
  assert.equal(
    { removed: done.removed, archived: done.archived, view: done.view },
    { removed: rec.cwd, archived: true, view: 'view' },
  )
  assert.not.ok(existsSync(rec.cwd))
  const after = c.ctx.store.get(rec.id)!
  assert.equal(
    { reaped: after.reaped, archived: after.archived },
    { reaped: { at: T0 + 60_000 }, archived: { at: T0 + 60_000 } },
  )
})

test('an archive the injected fault hook fails leaves the reap done and the lane not archived', async () => {
  const c = await context({ failFlags: ['ARCHIVE'] })
  await settleInterruptedLaunches(c.ctx)
  const rec = await playLane(c)
  c.calls.length = 0
  const done = await reapDirectory(c.ctx, new GitFactsCache(c.ctx.io), rec, {}, async () => undefined)
  assert.equal(c.calls, ['flag ARCHIVE'])
  assert.equal({ removed: done.removed, archived: done.archived }, { removed: rec.cwd, archived: false })
  assert.match(done.archiveError ?? '', 'injected archive failure')
  assert.is(c.ctx.store.get(rec.id)!.archived, undefined)
  assert.equal(c.ctx.store.get(rec.id)!.reaped, { at: T0 })
})

test.run()
