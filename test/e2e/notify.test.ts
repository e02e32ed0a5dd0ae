import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, alive, until } from '../helpers/home.js'
import { buildAndReport, setupProject, type Setup } from '../helpers/project.js'
import { Receiver, type Answer } from '../helpers/receiver.js'

/** Notifications without a browser: notify.yaml in the service home sends needs-you transitions and lane reports
 * to a webhook (here a receiver on 127.0.0.1) and to a desktop command. */

let h: TestHome
let s: Setup
let rx: Receiver | undefined
test.before.each(async () => {
  h = new TestHome('notify')
  // Retries 50 ms apart, and a webhook that has not answered within 5 s given up: timings a test can wait for.
  h.extraEnv = { SERVICE_TEST_BUILD: '1', SERVICE_TEST_NOTIFY_RETRY_MS: '50' }
  s = await setupProject(h)
})
test.after.each(async () => {
  await h.stop()
  await rx?.stop()
  rx = undefined
})

const writeNotify = (block: unknown) =>
  writeFileSync(join(h.service, 'notify.yaml'), typeof block === 'string' ? block : JSON.stringify(block))
/** A receiver answering as told, and notify.yaml pointing at it; the kernel restarted so it reads the block at
 * start. */
async function receiver(answer?: (n: number) => Answer, extra: object = {}): Promise<Receiver> {
  rx = await new Receiver(answer).start()
  writeNotify({ webhook: { url: rx.url, headers: { authorization: 'Bearer t0k' } }, ...extra })
  return rx
}
const start = (args: string[]) => h.ok(['lane', 'start', '--run', 'r1', ...args], { env: s.env })

test('a conversation turning needs-you posts once per transition, with its reason', async () => {
  const r = await receiver()
  const gate = (n: number) => `while [ ! -e ${h.home}/go-${n} ]; do sleep 0.05; done`
  const id = (
    await h.ok([
      'conv',
      'new',
      '--harness',
      'shell',
      '--cwd',
      h.home,
      '--title',
      'ask me',
      '--prompt',
      [
        'svc conv mark needs-you --reason question',
        gate(1),
        'svc conv mark working',
        'svc conv mark needs-you --reason plan',
        gate(2),
        'svc conv mark working',
        'svc conv mark needs-you --reason question',
      ].join('\n'),
    ])
  ).trim()
  // Posts leave one at a time in order, so each later transition's post is the barrier that proves no second post
  // of an earlier one: a repeat would arrive before it.
  const reasons = () => (r.bodies() as any[]).map((b) => b.reason)
  await until(() => r.got.length >= 1, 'the first post')
  // The watcher sees the kernel's own write again, and the deck re-reads: neither is a second transition.
  await h.ok(['conv', 'show', id])
  const [first] = r.bodies() as any[]
  assert.equal(
    { ...first, at: undefined },
    { event: 'needs-you', conv: { id, name: `c${id}`, title: 'ask me' }, reason: 'question', at: undefined },
  )
  assert.ok(Math.abs(Date.parse(first.at) - Date.now()) < 30_000, first.at)
  assert.is(r.got[0].headers['content-type'], 'application/json')
  assert.is(r.got[0].headers.authorization, 'Bearer t0k')
  writeFileSync(join(h.home, 'go-1'), '')
  await until(() => r.got.length >= 2, 'the second post')
  assert.equal(reasons(), ['question', 'plan'])
  writeFileSync(join(h.home, 'go-2'), '')
  await until(() => r.got.length >= 3, 'the third post')
  assert.equal(reasons(), ['question', 'plan', 'question'])
})

test('a lane report posts once, with its lane, status and first line', async () => {
  const r = await receiver()
  await start([
    '--key',
    'b',
    '--role',
    'builder',
    '--prompt',
    // The needs-you after the report is the barrier: posts leave one at a time in order, so a second post of the
    // report would arrive before it.
    `${buildAndReport('\n  Built the parser.  \nDetails follow.')}\nsvc conv mark needs-you --reason question`,
  ])
  await until(() => r.got.length >= 2, 'the report post, then the needs-you post')
  assert.equal(
    (r.bodies() as any[]).map((b) => b.event),
    ['report', 'needs-you'],
  )
  const [body] = r.bodies() as any[]
  const conv = JSON.parse(await h.ok(['conv', 'show', 'r1-b-builder-i1', '--json']))
  assert.equal(
    { ...body, at: undefined },
    {
      event: 'report',
      conv: { id: conv.id, name: 'r1-b-builder-i1' },
      lane: { run: 'r1', key: 'b', role: 'builder', iteration: 1 },
      status: 'done',
      firstLine: 'Built the parser.',
      at: undefined,
    },
  )
})

test('a receiver failing twice then answering gets the same body on the third try; each failure is one log line', async () => {
  const r = await receiver((n) => (n < 2 ? 500 : 200))
  // The needs-you after the report waits its turn behind the report's tries (one post at a time, in order), so its
  // post proves the third try was the report's last.
  const script = `${buildAndReport('third time')}\nsvc conv mark needs-you --reason question`
  await start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await until(() => r.got.length >= 4, 'three tries, then the needs-you post')
  assert.equal(
    (r.bodies() as any[]).map((b) => b.event),
    ['report', 'report', 'report', 'needs-you'],
  )
  assert.is(r.got[1].body, r.got[0].body)
  assert.is(r.got[2].body, r.got[0].body)
  assert.is((r.bodies()[2] as any).firstLine, 'third time')
  // Backoff: the second retry waits twice as long as the first (50 ms, then 100 ms).
  assert.ok(r.got[1].at - r.got[0].at >= 50, `${r.got[1].at - r.got[0].at} ms`)
  assert.ok(r.got[2].at - r.got[1].at >= 100, `${r.got[2].at - r.got[1].at} ms`)
  const failures = h
    .kernelLog()
    .split('\n')
    .filter((l) => /^\S+ \w+ notify/.test(l))
  assert.equal(
    failures.map((l) => l.replace(/^\S+ /, '')),
    [
      'warn notify webhook: report of conv-r1-b-builder-i1: try 1 of 3 failed: HTTP 500; next in 50 ms',
      'warn notify webhook: report of conv-r1-b-builder-i1: try 2 of 3 failed: HTTP 500; next in 100 ms',
    ],
  )
})

test('a receiver that never answers does not delay svc lane report; the kernel gives up and logs it', async () => {
  const r = await receiver(() => 'hang')
  h.extraEnv.SERVICE_TEST_NOTIFY_TIMEOUT_MS = '3000'
  await h.ok(['kernel', 'stop'])
  // What the kernel had logged when each report returned is kept: a report that waited for its webhook would return
  // only after the post's first try failed (3 s after the report was filed), whatever a Node start costs here.
  const kernelLog = join(h.service, 'kernel.log')
  const script = [
    'echo work > w.txt; git add w.txt; git commit -qm w; git push -q -u origin HEAD 2>/dev/null',
    // A blocked report exits 4 (and the script runs under bash -e).
    `svc lane report --stdin --status blocked <<<'BLOCKED first' > /dev/null || true; cp ${kernelLog} ${h.home}/log1`,
    `svc lane report --stdin <<<'second' > /dev/null; cp ${kernelLog} ${h.home}/log2`,
    `touch ${h.home}/reported`,
  ].join('\n')
  await start(['--key', 'b', '--role', 'builder', '--prompt', script])
  await until(() => existsSync(join(h.home, 'reported')), 'both reports')
  const timedOut = (log: string) =>
    log.split('\n').filter((l) => l.includes('notify webhook: report of conv-r1-b-builder-i1: try 1 of 3 failed'))
  const [log1, log2] = ['log1', 'log2'].map((f) => readFileSync(join(h.home, f), 'utf8'))
  // Each report returns before its own post's first try gives up, the second while the first post still hangs.
  assert.equal(timedOut(log1), [], 'the first report returned before its post timed out')
  assert.ok(timedOut(log2).length <= 1, `the second report returned before its post timed out:\n${log2}`)
  assert.not.match(log2, 'not delivered', 'the second report returned while the first post was still tried')
  assert.ok(r.got.length >= 1)
  await until(
    () =>
      h
        .kernelLog()
        .includes(
          'notify webhook: report of conv-r1-b-builder-i1 not delivered: no answer within 3000 ms (gave up after 3 ' +
            'tries)',
        ),
    'the give-up line',
    20_000,
  )
  assert.ok(alive(h.kernelFile()!.pid), 'the kernel lives on after a webhook that never answers')
})

test('a command notifier gets the body as JSON on stdin and a short title and text in its environment', async () => {
  const out = join(h.home, 'got')
  const script = join(h.home, 'notify.sh')
  writeFileSync(
    script,
    `#!/bin/sh\ncat > "$1/body-$$.json"\nprintf '%s\\n%s\\n%s\\n' "$SERVICE_NOTIFY_EVENT" "$SERVICE_NOTIFY_TITLE" ` +
      `"$SERVICE_NOTIFY_BODY" > "$1/env-$$.txt"\n`,
  )
  chmodSync(script, 0o755)
  mkdirSync(out)
  writeNotify({ command: [script, out], events: ['report'] })
  await start([
    '--key',
    'b',
    '--role',
    'builder',
    '--prompt',
    `svc conv mark needs-you --reason permission\n${buildAndReport('Parser done.')}`,
  ])
  // Runs go one at a time in order: had the needs-you (earlier, and of an event the block does not name) run the
  // command, its files would be there before the report's.
  const reported = 'report\nr1/b builder i1 reported done\nParser done.\n'
  const envs = () => readdirSync(out).filter((f) => f.startsWith('env-'))
  await until(() => envs().some((f) => readFileSync(join(out, f), 'utf8') === reported), 'the report run')
  const files = readdirSync(out).sort()
  // Only the report: the block names no other event.
  assert.is(files.length, 2, files.join(' '))
  const body = JSON.parse(readFileSync(join(out, files[0]), 'utf8'))
  assert.is(body.event, 'report')
  assert.is(body.firstLine, 'Parser done.')
  assert.equal(body.lane, { run: 'r1', key: 'b', role: 'builder', iteration: 1 })
  assert.is(readFileSync(join(out, files[1]), 'utf8'), 'report\nr1/b builder i1 reported done\nParser done.\n')
})

test('a command that outlives its limit is killed and logged; the next notification still runs', async () => {
  h.extraEnv.SERVICE_TEST_NOTIFY_COMMAND_LIMIT_MS = '300'
  await h.ok(['kernel', 'stop'])
  const script = join(h.home, 'slow.sh')
  // The first run hangs (its pid is kept to check it was killed); later runs record their input (whole, then renamed).
  writeFileSync(
    script,
    `#!/bin/sh\nif [ ! -e "$1/first" ]; then echo $$ > "$1/first"; exec sleep 30; fi\ncat > "$1/later.tmp"; mv ` +
      `"$1/later.tmp" "$1/later.json"\n`,
  )
  chmodSync(script, 0o755)
  writeNotify({ command: [script, h.home], events: ['report'] })
  const script2 = [
    'echo w > w.txt; git add w.txt; git commit -qm w; git push -q -u origin HEAD 2>/dev/null',
    "svc lane report --stdin --status blocked <<<'BLOCKED one' || true",
    "svc lane report --stdin <<<'two'",
  ].join('\n')
  await start(['--key', 'b', '--role', 'builder', '--prompt', script2])
  await until(() => existsSync(join(h.home, 'later.json')), 'the second run')
  assert.is(JSON.parse(readFileSync(join(h.home, 'later.json'), 'utf8')).firstLine, 'two')
  const pid = Number(readFileSync(join(h.home, 'first'), 'utf8'))
  assert.not.ok(alive(pid), 'the hung command was killed')
  const log = h.kernelLog()
  assert.ok(
    log.includes(
      `error notify command: report of conv-r1-b-builder-i1 not delivered: still running after 300 ms; killed\n`,
    ),
    log,
  )
})

test('a broken notify block: one line in svc doctor and kernel.log, notifications off, lanes keep working', async () => {
  // Written while no kernel runs: a kernel reads the block at its start and again at each change it hears of, and logs
  // a broken one once. The kernel of the setup, had it heard of a late change (its own conversation's files) after
  // the block was written, would log it too, a second line in the same kernel.log.
  await h.ok(['kernel', 'stop'])
  writeNotify({ webhook: { url: 'ftp://example.com/hook' } })
  const d = await h.svc(['doctor'])
  assert.is(d.code, 1)
  const path = join(h.service, 'notify.yaml')
  assert.match(
    d.stdout,
    `PROBLEM  notify: ${path}: webhook.url: an http:// or https:// URL; notifications are off\n         fix: ` +
      `correct ${path} (README, Notifications)\n`,
  )
  const logged = h
    .kernelLog()
    .split('\n')
    .filter((l) => /^\S+ \w+ notify/.test(l))
  assert.equal(
    logged.map((l) => l.replace(/^\S+ /, '')),
    [`error notify: ${path}: webhook.url: an http:// or https:// URL; notifications are off until it is corrected`],
  )
  await start(['--key', 'b', '--role', 'builder', '--prompt', buildAndReport('still fine')])
  assert.is((await h.svc(['lane', 'wait', 'r1-b-builder-i1', '--timeout', '30'])).code, 0)
  // Corrected while the kernel runs: the next report is sent, with no restart.
  const r = (rx = await new Receiver().start())
  writeNotify({ webhook: { url: r.url } })
  assert.match(
    (await h.svc(['doctor'])).stdout,
    `ok       notify: webhook to http://127.0.0.1:${new URL(r.url).port} (needs-you, report)\n`,
  )
  await start(['--key', 'c', '--role', 'builder', '--prompt', buildAndReport('now sent')])
  await until(() => r.got.length, 'the post after the fix')
  assert.is((r.bodies()[0] as any).firstLine, 'now sent')
})

test.run()
