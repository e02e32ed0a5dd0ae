import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REFUSED_PORT, TestHome } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'
import { procStat } from '../../kernel/io/procs.js'
import { recordFigure } from './figures.js'

// A kernel that stops answering (SIGSTOP here, a hung event loop in use) ends every verb within its deadline, with
// one line naming the kernel and what to do; a report given to such a kernel is kept, not lost. A kernel that holds
// kernel.json but cannot be reached is named as such, never an internal error about a file.

/** Short beats so that the test waits milliseconds for what takes seconds in use. */
const TIMING = { SERVICE_TEST_BUILD: '1', SERVICE_TEST_KERNEL_BEAT_MS: '200', SERVICE_TEST_KERNEL_PROBE_MS: '800' }
/** The deadline a verb must meet here: a beat and a probe (1 s), plus the Node starts of seven calls at once on a
 * loaded machine (one run here took 6.9 s). A verb that the probe did not end would wait out its call's own limit
 * (300 s) or its wait (60 s), far beyond it. */
const DEADLINE_MS = 20_000

let h: TestHome
let s: Setup
test.before(async () => {
  h = new TestHome('stopped-kernel')
  h.extraEnv = TIMING
  s = await setupProject(h)
})
test.after(async () => {
  const k = h.kernelFile()
  try {
    if (k) process.kill(k.pid, 'SIGCONT')
  } catch {}
  await h.stop()
})

const timed = async (args: string[], opts: Parameters<TestHome['svc']>[1] = {}) => {
  const t0 = Date.now()
  const r = await h.svc(args, { timeoutMs: 2 * DEADLINE_MS, ...opts })
  return { ...r, ms: Date.now() - t0 }
}

test('a wait longer than the beat keeps waiting on a kernel that answers', async () => {
  await h.ok(['lane', 'start', '--run', 'r1', '--key', 'b', '--role', 'builder', '--prompt', 'sleep 30'], {
    env: s.env,
  })
  const r = await timed(['lane', 'wait', '--run', 'r1', '--timeout', '2'])
  assert.is(r.code, 3, r.stderr)
  assert.ok(r.ms >= 2000, `ended after ${r.ms} ms`)
})

test('a stopped kernel: every verb ends within its deadline naming the kernel and what to do, and a report is kept', async () => {
  const k = h.kernelFile()!
  process.kill(k.pid, 'SIGSTOP')
  try {
    for (let i = 0; i < 100 && procStat(k.pid)?.state !== 'T'; i++) await new Promise((r) => setTimeout(r, 10))
    const verbs = [
      ['kernel', 'status'],
      ['kernel', 'stop'],
      ['lane', 'list'],
      ['conv', 'list'],
      ['lane', 'wait', '--run', 'r1', '--timeout', '60'],
      ['tell', '1', 'hello'],
    ]
    const report = timed(['lane', 'report', '--status', 'blocked', '--stdin'], {
      input: 'BLOCKED: the text the agent wrote\n',
      env: { SERVICE_CONVERSATION: '1' },
    })
    const results = await Promise.all(verbs.map((v) => timed(v)))
    const line = `svc: the kernel on port ${k.port} (pid ${k.pid}) stopped answering: its process is stopped\n`
    const hint =
      `hint: resume it with kill -CONT ${k.pid}, or end it with kill -KILL ${k.pid} (the next svc call ` +
      `starts a new kernel)\n`
    results.forEach((r, i) => {
      const what = verbs[i].join(' ')
      assert.is(r.stderr, line + hint, what)
      assert.is(r.code, 1, what)
      assert.ok(r.ms < DEADLINE_MS, `${what} took ${r.ms} ms`)
    })

    const r = await report
    assert.is(r.code, 1)
    assert.ok(r.ms < DEADLINE_MS, `report took ${r.ms} ms`)
    const kept = /the report was not filed and is kept in (\S+)\n/.exec(r.stderr)?.[1]
    assert.ok(kept, r.stderr)
    assert.is(
      r.stderr,
      `svc: the kernel on port ${k.port} (pid ${k.pid}) stopped answering: its process is stopped; the report was ` +
        `not filed and is kept in ${kept}\n` +
        `hint: resume it with kill -CONT ${k.pid}, or end it with kill -KILL ${k.pid} (the next svc call starts a ` +
        `new kernel); then send it again: svc lane report --file ${kept} --status blocked\n`,
    )
    assert.is(readFileSync(kept!, 'utf8'), 'BLOCKED: the text the agent wrote\n')
    const slowest = Math.max(r.ms, ...results.map((x) => x.ms))
    recordFigure(
      'a stopped kernel (SIGSTOP): status, stop, lane list, conv list, lane wait, tell and report at once, each ' +
        'must end within its deadline with one line naming the kernel and what to do; the report kept in a file',
      `${verbs.length + 1} verbs, all ended, the slowest in ${slowest} ms (beat ` +
        `${TIMING.SERVICE_TEST_KERNEL_BEAT_MS} ms, probe ${TIMING.SERVICE_TEST_KERNEL_PROBE_MS} ms here; 3 s and 10 ` +
        `s in use); the report kept byte for byte`,
    )
  } finally {
    process.kill(k.pid, 'SIGCONT')
  }
  // Resumed, the same kernel answers again: nothing was started beside it.
  assert.match(await h.ok(['kernel', 'status']), `pid ${k.pid}, port ${k.port}`)
})

test('a kernel that holds kernel.json but cannot be reached is named in one line, never a log file error', async () => {
  await h.ok(['kernel', 'stop'])
  // A live process holds the manifest; nothing listens on its port; the home cannot take a kernel.log.
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' })
  const port = REFUSED_PORT
  const kernelJson = join(h.service, 'kernel.json')
  const log = join(h.service, 'kernel.log')
  renameSync(log, `${log}.kept`)
  mkdirSync(log)
  try {
    const version = (await h.ok(['--version'])).trim().split(' ')[1]
    writeFileSync(
      kernelJson,
      JSON.stringify({ pid: holder.pid, start: procStat(holder.pid!)!.start, port, token: 't', version, startedAt: 1 }),
      { mode: 0o600 },
    )
    const r = await timed(['lane', 'list'])
    assert.is(
      r.stderr,
      `svc: cannot reach the kernel on port ${port} (pid ${holder.pid}) that holds ${kernelJson}: connect ` +
        `ECONNREFUSED 127.0.0.1:${port}\n` +
        `hint: if this runs in a sandbox, let it connect to 127.0.0.1:${port}; else end that kernel with kill ` +
        `${holder.pid} (the next svc call starts a new one)\n`,
    )
    assert.is(r.code, 1)
    assert.ok(r.ms < DEADLINE_MS, `took ${r.ms} ms`)

    // The holder gone, no kernel can be started here: said in one line too.
    holder.kill('SIGKILL')
    await new Promise((r) => holder.once('exit', r))
    const gone = await timed(['lane', 'list'])
    assert.is(
      gone.stderr,
      `svc: no kernel answers for ${h.service}, and none can be started from here: ${log} cannot be opened (EISDIR)\n` +
        `hint: if this runs in a sandbox, let it connect to 127.0.0.1:${port} and run svc kernel start outside it\n`,
    )
    assert.is(gone.code, 1)
  } finally {
    holder.kill('SIGKILL')
  }
})

test.run()
