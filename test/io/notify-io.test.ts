import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DeliveryQueue } from '../../kernel/queue/delivery-queue.js'
import { postJson } from '../../kernel/io/http-post.js'
import { NotifyConfigFile } from '../../kernel/io/notify-config-file.js'
import { runCommand } from '../../kernel/io/run-command.js'
import { alive, scratchDir, until } from '../helpers/home.js'
import { Receiver } from '../helpers/receiver.js'

/** The adapters notifications go out through: one POST, one command run, the queue in front of them, the file. */

let dir: string
test.before.each(() => {
  dir = scratchDir('notify-io')
  mkdirSync(dir, { recursive: true })
})
test.after.each(() => rmSync(dir, { recursive: true, force: true }))

test('postJson: the body as JSON with the headers; the answer as an attempt', async () => {
  const rx = await new Receiver((n) => [204, 503, 404][n]).start()
  try {
    assert.equal(
      await postJson(rx.url, { a: 1 }, { headers: { 'X-Token': 't', 'Content-Type': 'text/plain' }, timeoutMs: 2000 }),
      { ok: true },
    )
    assert.is(rx.got[0].body, '{"a":1}')
    assert.is(rx.got[0].headers['x-token'], 't')
    assert.is(rx.got[0].headers['content-type'], 'application/json')
    assert.equal(await postJson(rx.url, {}, { timeoutMs: 2000 }), { ok: false, error: 'HTTP 503' })
    assert.equal(await postJson(rx.url, {}, { timeoutMs: 2000 }), { ok: false, error: 'HTTP 404', permanent: true })
  } finally {
    await rx.stop()
  }
})

test('postJson: a receiver that never answers is given up at the limit; a closed port is its error code; neither throws', async () => {
  const rx = await new Receiver(() => 'hang').start()
  const t0 = Date.now()
  assert.equal(await postJson(rx.url, {}, { timeoutMs: 200 }), { ok: false, error: 'no answer within 200 ms' })
  assert.ok(Date.now() - t0 < 900, `${Date.now() - t0} ms`)
  await rx.stop()
  assert.equal(await postJson(rx.url, {}, { timeoutMs: 2000 }), { ok: false, error: 'ECONNREFUSED' })
})

const script = (name: string, body: string) => {
  const p = join(dir, name)
  writeFileSync(p, `#!/bin/sh\n${body}\n`)
  chmodSync(p, 0o755)
  return p
}

test('runCommand: input on stdin, variables in the environment, no shell between', async () => {
  const p = script('ok.sh', 'cat > "$1/in"; printf %s "$NOTE" > "$1/env"; printf %s "$2" > "$1/arg"')
  const arg = `a; touch ${dir}/shell`
  assert.equal(await runCommand([p, dir, arg], { input: '{"x":1}\n', env: { NOTE: 'note' }, timeoutMs: 5000 }), {
    ok: true,
  })
  assert.is(readFileSync(join(dir, 'in'), 'utf8'), '{"x":1}\n')
  assert.is(readFileSync(join(dir, 'env'), 'utf8'), 'note')
  assert.is(readFileSync(join(dir, 'arg'), 'utf8'), arg)
  assert.not.ok(existsSync(join(dir, 'shell')))
})

test('runCommand: a failure says the exit code and the first line of stderr; a missing program says so', async () => {
  const p = script('fail.sh', 'echo; echo "no display" >&2; echo more >&2; exit 3')
  assert.equal(await runCommand([p], { input: '', env: {}, timeoutMs: 5000 }), {
    ok: false,
    error: `${p} exited 3: no display`,
  })
  const missing = join(dir, 'missing')
  assert.equal(await runCommand([missing], { input: '', env: {}, timeoutMs: 5000 }), {
    ok: false,
    error: `cannot run ${missing}: spawn ${missing} ENOENT`,
  })
})

test('runCommand: past its limit the whole process group is killed', async () => {
  const p = script('hang.sh', 'sleep 30 & echo $! > "$1/child"; wait')
  const t0 = Date.now()
  assert.equal(await runCommand([p, dir], { input: '', env: {}, timeoutMs: 300 }), {
    ok: false,
    error: 'still running after 300 ms; killed',
  })
  assert.ok(Date.now() - t0 < 900)
  const child = Number(readFileSync(join(dir, 'child'), 'utf8'))
  await until(() => !alive(child), 'the grandchild gone with its group', 2000)
})

test('DeliveryQueue: in order, one at a time; past the bound the oldest is dropped and counted; a throw does not stop it', async () => {
  const delivered: number[] = []
  const drops: number[] = []
  const errors: string[] = []
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const q = new DeliveryQueue<number>(
    2,
    async (n) => {
      if (n === 1) await gate
      if (n === 4) throw new Error('four')
      delivered.push(n)
    },
    (d) => drops.push(d),
    (e) => errors.push((e as Error).message),
  )
  for (const n of [1, 2, 3, 4, 5]) q.push(n)
  // 1 is being delivered; 2, 3, 4, 5 arrived behind it with room for two: 2 and 3 were dropped.
  assert.equal(drops, [1, 2])
  assert.is(q.dropped, 2)
  release()
  // 5 is delivered after 4 failed: once it is there, 4 was tried.
  await until(() => delivered.includes(5), 'the queue delivering 5', 5000, 5)
  assert.equal(delivered, [1, 5])
  assert.equal(errors, ['four'])
  q.push(6)
  await until(() => delivered.includes(6), 'the queue delivering 6', 5000, 5)
  assert.equal(delivered, [1, 5, 6])
})

test('NotifyConfigFile: none, a block, bad YAML, a bad block, not a file: never a throw', async () => {
  const path = join(dir, 'notify.yaml')
  const f = new NotifyConfigFile(path)
  assert.equal(await f.read(), {})
  writeFileSync(path, '# nothing yet\n')
  assert.equal(await f.read(), {})
  writeFileSync(path, 'command: [show-note, "x"]\n')
  assert.equal(await f.read(), { config: { command: ['show-note', 'x'] } })
  writeFileSync(path, 'command: [show-note\n')
  assert.match((await f.read()).problem!, `${path}: not valid YAML: `)
  writeFileSync(path, 'webhook: {url: "file:///etc/passwd"}\n')
  assert.equal(await f.read(), { problem: `${path}: webhook.url: an http:// or https:// URL` })
  rmSync(path)
  mkdirSync(path)
  assert.match((await f.read()).problem!, `${path}: cannot be read: EISDIR`)
})

test.run()
