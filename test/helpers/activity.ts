import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TestHome } from './home.js'

/** Ask the running kernel of a test home directly (no CLI process per call), to watch activity change quickly. */
export async function rpc(h: TestHome, method: string, body: unknown): Promise<any> {
  const k = h.kernelFile()
  if (!k) throw new Error('no kernel.json in the test home')
  const res = await fetch(`http://127.0.0.1:${k.port}/rpc/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return res.json()
}

/** `working`, `idle`, `needs-you (plan)`… as `svc conv list` writes it. */
export const label = (v: { activity: string; reason?: string }) => v.activity + (v.reason ? ` (${v.reason})` : '')

/** The longest a watch goes without a look when the kernel records no change (a fact no file write announces, such
 * as a process found gone, is still seen). */
const LOOK_AT_LEAST_EVERY_MS = 250

/** Calls `look` now and again after each change the kernel records (its long poll, as the deck follows it), or after
 * LOOK_AT_LEAST_EVERY_MS without one, until it returns something or `on()` is false: a watch that costs a request per
 * change, not one every few milliseconds. A change made while a look is under way wakes the next wait at once. */
async function lookOnChanges<T>(
  h: TestHome,
  look: () => Promise<T | undefined>,
  on: () => boolean,
): Promise<T | undefined> {
  let seen = (await rpc(h, 'changes', { after: Number.MAX_SAFE_INTEGER, timeoutMs: 0 })).last as number
  while (on()) {
    const found = await look()
    if (found !== undefined) return found
    if (!on()) break
    seen = (await rpc(h, 'changes', { after: seen, timeoutMs: LOOK_AT_LEAST_EVERY_MS })).last
  }
  return undefined
}

/** Every distinct activity a conversation shows, looked at on each change the kernel records, until stopped;
 * `starting` before the harness published itself is left out. */
export function trackActivity(h: TestHome, conv: string) {
  const seen: string[] = []
  let on = true
  const look = async () => {
    const l = label(await rpc(h, 'convShow', { conv }))
    if (seen.at(-1) !== l && !(l === 'starting' && !seen.length)) seen.push(l)
    return undefined
  }
  // A failed look ends the tracking; stop() reports it (never an unhandled rejection in the background).
  const loop = lookOnChanges(h, look, () => on).then(
    () => undefined,
    (e: Error) => e,
  )
  return {
    seen,
    /** Stop, after one last look (what the caller just waited for is seen). */
    stop: async () => {
      on = false
      const failed = await loop
      if (failed) throw failed
      await look()
      return seen
    },
  }
}

/** Wait until the conversation shows this activity (looked at on each change the kernel records); returns its view. */
export async function untilActivity(h: TestHome, conv: string, want: string, limitMs = 20_000): Promise<any> {
  const deadline = Date.now() + limitMs
  let last: any
  const found = await lookOnChanges(
    h,
    async () => {
      last = await rpc(h, 'convShow', { conv })
      return label(last) === want ? last : undefined
    },
    () => Date.now() < deadline,
  )
  if (found) return found
  throw new Error(`conv ${conv} did not become ${want}; last: ${label(last)} ${JSON.stringify(last?.activity)}`)
}

/** The records the fake CLIs wrote to $FAKE_HARNESS_LOG. */
export function harnessLog(path: string): any[] {
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/** A test home whose kernel finds the fake claude (fixtures/bin) first on PATH, writing what it was given to `log`;
 * for what the real CLI cannot do here. */
export function fakeHarnessHome() {
  const harness = 'claude'
  const h = new TestHome(harness)
  const log = join(h.dir, 'harness.jsonl')
  h.extraEnv = {
    PATH: `${join(ROOT, 'fixtures', 'bin')}:${process.env.PATH}`,
    FAKE_HARNESS_LOG: log,
    FAKE_NODE: process.execPath,
  }
  return {
    h,
    log,
    convNew: async (prompt: string, ...more: string[]) =>
      (await h.ok(['conv', 'new', '--harness', harness, '--cwd', h.home, '--prompt', prompt, ...more])).trim(),
    /** The fake's start records, one per process it ran. */
    starts: () => harnessLog(log).filter((r) => r.event === 'start'),
    transcript: async (id: string) =>
      (await rpc(h, 'convTranscript', { conv: id })).entries.map((e: any) => `${e.kind} ${e.text}`) as string[],
  }
}

/** What a command run inside a driven conversation has in its environment: its id and the key svc gave it, read
 * from its runner's environment (the only place the key is kept; the record holds its hash). */
export async function insideConv(
  h: TestHome,
  conv: string,
): Promise<{ SERVICE_CONVERSATION: string; SERVICE_CONVERSATION_KEY: string }> {
  const v = await rpc(h, 'convShow', { conv })
  const state = JSON.parse(readFileSync(join(h.service, 'agents', `conv-${v.name}`, 'state.json'), 'utf8'))
  const env = readFileSync(`/proc/${state.runner.pid}/environ`, 'utf8').split('\0')
  const key = env.find((e) => e.startsWith('SERVICE_CONVERSATION_KEY='))?.slice('SERVICE_CONVERSATION_KEY='.length)
  if (!key) throw new Error(`conv ${conv}'s runner has no SERVICE_CONVERSATION_KEY`)
  return { SERVICE_CONVERSATION: v.id, SERVICE_CONVERSATION_KEY: key }
}
