import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { statSync, writeFileSync, readFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, until } from '../helpers/home.js'

let h: TestHome
test.before.each(() => {
  h = new TestHome('kernel')
})
test.after.each(async () => {
  await h.stop()
})

test('any verb starts the kernel; kernel.json is 0600, the home 0700, the kernel listens on the loopback only', async () => {
  assert.is(h.kernelFile(), undefined)
  const r = await h.svc(['conv', 'list'])
  assert.is(r.code, 0, r.stderr)
  const k = h.kernelFile()!
  assert.ok(k && alive(k.pid))
  assert.is(statSync(join(h.service, 'kernel.json')).mode & 0o777, 0o600)
  assert.is(statSync(h.service).mode & 0o777, 0o700)
  const tcp = readFileSync('/proc/net/tcp', 'utf8')
  const portHex = k.port.toString(16).toUpperCase().padStart(4, '0')
  const listen = tcp.split('\n').filter((l) => l.includes(`:${portHex} `) && l.trim().split(/\s+/)[3] === '0A')
  assert.is(listen.length, 1)
  assert.ok(listen[0].trim().split(/\s+/)[1].startsWith('0100007F:'), 'bound to 127.0.0.1')
  assert.match(h.kernelLog(), `pid ${k.pid} listening on 127.0.0.1:${k.port}`)
})

test('every request needs the bearer token', async () => {
  await h.ok(['kernel', 'start'])
  const k = h.kernelFile()!
  const post = (auth?: string) =>
    fetch(`http://127.0.0.1:${k.port}/rpc/kernelStatus`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      body: '{}',
    })
  assert.is((await post()).status, 401)
  assert.is((await post('Bearer wrong')).status, 401)
  assert.equal(await (await post()).json(), { error: { code: 'unauthorized', message: 'missing or wrong token' } })
  const ok = await post(`Bearer ${k.token}`)
  assert.is(ok.status, 200)
  assert.is(((await ok.json()) as { pid: number }).pid, k.pid)
})

test('five CLIs racing to start a kernel end with exactly one', async () => {
  const results = await Promise.all([1, 2, 3, 4, 5].map(() => h.svc(['kernel', 'start', '--json'])))
  for (const r of results) assert.is(r.code, 0, r.stderr)
  const pids = new Set(results.map((r) => JSON.parse(r.stdout).pid))
  assert.is(pids.size, 1)
  const [pid] = [...pids]
  assert.is(h.kernelFile()!.pid, pid)
  // The losers exited: only one kernel process for this home remains.
  await until(() => {
    const kernels = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return (
            readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('kernel\0run') &&
            readFileSync(`/proc/${p}/environ`, 'utf8').includes(`SERVICE_HOME=${h.service}\0`)
          )
        } catch {
          return false
        }
      })
    return kernels.length === 1 && Number(kernels[0]) === pid
  }, 'one kernel process')
})

test('kernel status and stop; status exits 1 when none runs; kernel.json is removed on exit', async () => {
  const none = await h.svc(['kernel', 'status'])
  assert.is(none.code, 1)
  assert.is(none.stderr, `svc: no kernel is running for ${h.service}\n`)
  await h.ok(['kernel', 'start'])
  const k = h.kernelFile()!
  assert.match(await h.ok(['kernel', 'status']), `running: pid ${k.pid}, port ${k.port}`)
  assert.is(await h.ok(['kernel', 'stop']), `kernel pid ${k.pid} stopped\n`)
  assert.not.ok(existsSync(join(h.service, 'kernel.json')))
  await until(() => !alive(k.pid), 'kernel exit')
})

test('a stale kernel.json (dead pid) is replaced and the reason logged', async () => {
  writeFileSync(
    join(h.service, 'kernel.json'),
    JSON.stringify({ pid: 999999, start: '1', port: 1, token: 'x', version: '0.1.0', startedAt: 1 }),
    { mode: 0o600 },
  )
  await h.ok(['kernel', 'start'])
  const k = h.kernelFile()!
  assert.ok(k.pid !== 999999 && alive(k.pid))
  assert.match(h.kernelLog(), 'replacing stale')
  assert.match(h.kernelLog(), 'kernel pid 999999 is gone')
  assert.ok(existsSync(join(h.service, 'kernel.json.stale-999999')))
})

test('a kernel of another version is stopped and replaced', async () => {
  await h.ok(['kernel', 'start'])
  const old = h.kernelFile()!
  const text = readFileSync(join(h.service, 'kernel.json'), 'utf8')
  // Pretend the running kernel is of another version: rewrite its manifest's version.
  writeFileSync(join(h.service, 'kernel.json'), text.replace(/"version":"[^"]+"/, '"version":"0.0.1-old"'), {
    mode: 0o600,
  })
  await h.ok(['conv', 'list'])
  const k = h.kernelFile()!
  assert.ok(k.pid !== old.pid)
  await until(() => !alive(old.pid), 'old kernel exit')
})

test('a missing SERVICE_HOME is one line and exit 1, nothing created', async () => {
  const missing = join(h.dir, 'nope')
  const r = await h.svc(['conv', 'list'], { env: { SERVICE_HOME: missing } })
  assert.is(r.code, 1)
  assert.is(
    r.stderr,
    `svc: service home ${missing} does not exist\nhint: create it (mkdir -m 700 ${missing}) or unset SERVICE_HOME\n`,
  )
  assert.not.ok(existsSync(missing))
})

test('a store file that does not parse is refused alone: the kernel starts, the others are listed, the file is kept untouched and named in the log', async () => {
  await h.ok(['conv', 'new', '--harness', 'none', '--cwd', h.home])
  const other = (await h.ok(['conv', 'new', '--harness', 'none', '--cwd', h.home])).trim()
  await h.ok(['kernel', 'stop'])
  const record = join(h.service, 'agents', 'conv-c1', 'record.json')
  writeFileSync(record, '{"id": "1", broken')
  const r = await h.svc(['conv', 'list', '--json'])
  assert.is(r.code, 0, r.stderr)
  assert.equal(
    JSON.parse(r.stdout).map((c: { id: string }) => c.id),
    [other],
  )
  assert.is(readFileSync(record, 'utf8'), '{"id": "1", broken')
  assert.match(h.kernelLog(), `error store file ${record} does not parse`)
})

test('unknown command and unknown option are one line each, exit 1', async () => {
  const a = await h.svc(['frobnicate'])
  assert.is(a.code, 1)
  assert.is(a.stderr, "svc: unknown command 'frobnicate'\nhint: svc --help lists the commands\n")
  const b = await h.svc(['conv', 'list', '--bogus'])
  assert.is(b.code, 1)
  assert.is(b.stderr.split('\n')[0], "svc: unknown option --bogus for 'svc conv list'")
  assert.is(h.kernelFile(), undefined, 'a usage error starts no kernel')
})

test('--version prints the version; --help lists the verbs', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
  assert.is(await h.ok(['--version']), `svc ${pkg.version}\n`)
  const help = await h.ok(['--help'])
  for (const verb of ['conv new', 'conv list', 'tell', 'handoff', 'fork', 'kernel start']) assert.match(help, verb)
  assert.not.match(help, 'runner')
})

test.run()
