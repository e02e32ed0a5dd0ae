import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TestHome, until } from '../helpers/home.js'
import { buildAndReport, setupProject, type Setup } from '../helpers/project.js'
import { gates, kernelApi, rawRequest, readEvents, type Answer } from './api-kit.js'

/** The same handlers on workerd (`wrangler dev`, local, no account: wrangler.toml, handlers/worker.ts), reaching the
 * kernel through an HTTP KernelPort (KERNEL_URL, KERNEL_TOKEN), answer as the kernel itself does. */

let h: TestHome
let s: Setup
let wrangler: ChildProcess | undefined
let wranglerLog = ''

/** Whether a loopback port can be listened on now. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)))
  })

/** A loopback port free now that stays free while wrangler takes its seconds to start: one below the range the
 * system hands out for a listen on port 0 or an outgoing connection. A port of that range freed by a server of the
 * test's own could meanwhile be given to any process of the machine (another suite's kernel, which would then answer
 * the readiness check in wrangler's place). */
async function freePort(): Promise<number> {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
  for (let tries = 0; tries < 100; tries++) {
    const port = 10_000 + Math.floor(Math.random() * Math.max(0, low - 10_000))
    if (port < low && (await canListen(port))) return port
  }
  throw new Error(`no free loopback port below ${low}, where no process is given one it did not ask for`)
}

/** `wrangler dev` on a free loopback port, its own process group (wrangler runs workerd as a child). */
async function startWorker(kernelUrl: string, token: string): Promise<string> {
  const port = await freePort()
  const args = [
    join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
    'dev',
    '--local',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
  ]
  args.push(
    '--var',
    `KERNEL_URL:${kernelUrl}`,
    '--var',
    `KERNEL_TOKEN:${token}`,
    '--persist-to',
    join(h.dir, 'wrangler-state'),
    '--show-interactive-dev-session=false',
  )
  wrangler = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // No network: no Request.cf download, no metrics, no error reports.
    env: h.env({
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_SEND_ERROR_REPORTS: 'false',
      CI: 'true',
      NO_COLOR: '1',
    }),
  })
  wrangler.stdout!.on('data', (d) => (wranglerLog += d))
  wrangler.stderr!.on('data', (d) => (wranglerLog += d))
  const base = `http://127.0.0.1:${port}`
  await until(
    async () => {
      if (wrangler!.exitCode !== null) throw new Error(`wrangler dev exited ${wrangler!.exitCode}:\n${wranglerLog}`)
      return fetch(`${base}/api/lanes`).then(
        (r) => r.status === 401,
        () => false,
      )
    },
    'wrangler dev to answer',
    60_000,
    200,
  )
  return base
}

async function stopWorker() {
  const w = wrangler
  wrangler = undefined
  if (!w?.pid) return
  const groupAlive = () => {
    try {
      process.kill(-w.pid!, 0)
      return true
    } catch {
      return false
    }
  }
  // wrangler itself first, so it stops workerd and reaps it; whatever of the group is left then is killed.
  w.kill('SIGTERM')
  await until(() => w.exitCode !== null || w.signalCode !== null, 'wrangler to exit', 10_000).catch(() => false)
  if (groupAlive()) process.kill(-w.pid, 'SIGKILL')
}

test.before.each(async () => {
  h = new TestHome('workerd')
  s = await setupProject(h)
  wranglerLog = ''
})
test.after.each(async () => {
  await stopWorker()
  await h.stop()
})

test('GET /api/lanes through workerd equals the kernel answer; so do one lane, a filter, an error; a launch through workerd lands in the kernel', async () => {
  const api = kernelApi(h)
  const g = gates(h)
  const launch = (body: Record<string, unknown>) => api.post('/api/lanes', { run: 'r1', conversation: s.root, ...body })
  const b = (await launch({ key: 'b', role: 'builder', prompt: buildAndReport('built b') })).body.lane.id
  const p = (await launch({ key: 'p', role: 'play', prompt: 'echo played' })).body.lane.id
  const o = (await launch({ key: 'o', role: 'orchestrator', prompt: g.wait('o') })).body.lane.id
  await until(
    async () =>
      (await api.get(`/api/lanes/${b}`)).body.activity === 'stopped' &&
      (await api.get(`/api/lanes/${p}`)).body.activity === 'stopped',
    'b and p to end',
  )
  assert.is((await api.post(`/api/lanes/${p}/reap`, {})).status, 200)

  const base = await startWorker(api.base, api.token)
  const viaWorker = async (
    path: string,
    o: { method?: string; body?: unknown; token?: string | null } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = o.token === null ? {} : { authorization: `Bearer ${o.token ?? api.token}` }
    if (o.body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(base + path, {
      method: o.method ?? (o.body !== undefined ? 'POST' : 'GET'),
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    })
    return { status: res.status, body: await res.json() }
  }
  /** The worker's answer equals the kernel's, asked just before or just after (a live row's git facts are cached by
   * the kernel for 2 s, so two reads far apart may differ in their asOf alone). */
  const same = async (path: string) => {
    const before = await api.get(path)
    const worker = await viaWorker(path)
    const after = await api.get(path)
    assert.ok(
      JSON.stringify(worker) === JSON.stringify(before) || JSON.stringify(worker) === JSON.stringify(after),
      `${path}\nworker: ${JSON.stringify(worker)}\nkernel: ${JSON.stringify(after)}`,
    )
    return worker
  }
  const all = await same('/api/lanes')
  assert.is(all.status, 200)
  assert.equal(
    all.body.map((l: { id: string; activity: { value: string }; archived: boolean }) => [l.id, l.activity, l.archived]),
    [
      [b, 'stopped', false],
      [p, 'stopped', true],
      [o, 'working', false],
    ],
  )
  await same('/api/lanes?run=r1&key=b')
  await same(`/api/lanes/${b}`)
  await same(`/api/tree`)
  assert.equal(await same('/api/lanes/999'), {
    status: 404,
    body: {
      error: { code: 'not_found', message: 'no conversation 999', hint: 'svc conv list shows the conversations' },
    },
  })
  assert.equal(await same('/api/lanes?run=R1'), {
    status: 400,
    body: { error: { code: 'usage', message: "invalid run key 'R1': it must match ^[a-z0-9][a-z0-9-]{0,31}$" } },
  })

  // The worker's own door: its token, its Host check.
  assert.equal(await viaWorker('/api/lanes', { token: null }), {
    status: 401,
    body: { error: { code: 'unauthorized', message: 'missing or wrong token' } },
  })
  const port = Number(new URL(base).port)
  const hostile = await rawRequest(port, {
    path: '/api/lanes',
    headers: { host: 'attacker.example', authorization: `Bearer ${api.token}` },
  })
  assert.equal(
    [hostile.status, JSON.parse(hostile.text)],
    [403, { error: { code: 'forbidden', message: 'host attacker.example is not the loopback' } }],
  )

  // Live changes through workerd: the worker follows the kernel's changes by long poll over the HTTP port.
  const stream = await fetch(`${base}/api/events`, { headers: { authorization: `Bearer ${api.token}` } })
  assert.equal([stream.status, stream.headers.get('content-type')], [200, 'text/event-stream'])
  const live = readEvents(stream, (e) =>
    e.event === 'change' && JSON.parse(e.data).some((c: { name: string }) => c.name === 'r1-w-play-i1') ? e : undefined,
  )
  const launched = await viaWorker('/api/lanes', {
    body: { key: 'w', role: 'play', run: 'r1', prompt: 'echo from workerd', conversation: s.root },
  })
  assert.is(launched.status, 201, JSON.stringify(launched.body))
  assert.match(
    launched.body.line,
    new RegExp(`^Lane r1/w play i1: conv ${launched.body.lane.id} \\(r1-w-play-i1\\) in `),
  )
  assert.equal(
    (await api.get('/api/lanes?key=w')).body.map((l: { id: string }) => l.id),
    [launched.body.lane.id],
  )
  const { found, seen } = await live
  assert.ok(found, JSON.stringify(seen))
  assert.is(seen[0].event, 'ready')
  const refused = await viaWorker('/api/lanes', {
    body: { for: 'b', role: 'critic', run: 'r1', prompt: 'judge', conversation: o },
  })
  assert.equal(refused, {
    status: 403,
    body: {
      error: {
        code: 'forbidden',
        message: 'refused: an orchestrator lane cannot launch a critic lane; only a root conversation can',
      },
    },
  })
  g.open('o')
})

test.run()
