import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fileURLToPath } from 'node:url'
import { runProcess } from '../../kernel/io/process.js'
import { adoptingArgv, pidNamespaceProbe } from '../../kernel/io/subreaper.js'
import { inOwnPidNamespace, procPid, procPidIn, procPidOfChild, signalablePid } from '../../kernel/io/pid-namespace.js'

// A runner started as the first process of a PID namespace of its own is pid 1 to itself, while the kernel reads
// /proc, which names every process by its pid outside. The runner must publish its own and its harness's pids as
// /proc names them, and signal what /proc lists by the pid its namespace gives it.

const MODULE = fileURLToPath(new URL('../../kernel/io/pid-namespace.js', import.meta.url))

/** What a process started the way a runner is sees of itself and of a child it starts. */
const INSIDE = `
const { spawn } = require('node:child_process')
import(${JSON.stringify(MODULE)}).then((m) => {
  const child = spawn('sleep', ['5'], { stdio: 'ignore' })
  child.on('spawn', () => {
    const childProc = m.procPidOfChild(child.pid)
    const status = require('node:fs').readFileSync('/proc/' + childProc + '/status', 'utf8')
    console.log(JSON.stringify({
      pid: process.pid,
      procPid: m.procPid(),
      inOwn: m.inOwnPidNamespace(),
      child: child.pid,
      childProc,
      childCommand: /^Name:\\s*(\\S+)/m.exec(status)[1],
      childParent: Number(/^PPid:\\s*(\\d+)/m.exec(status)[1]),
      signalable: m.signalablePid(childProc),
    }))
    child.kill('SIGKILL')
  })
})
`

test('outside a namespace of its own, a process names itself and its children as /proc does', () => {
  assert.is(inOwnPidNamespace(), false)
  assert.is(procPid(), process.pid)
  assert.is(procPidOfChild(12345), 12345)
  assert.is(signalablePid(12345), 12345)
})

test("a runner's namespace: pid 1 to itself, its own and its child's pids as /proc names them, signals by its own", async () => {
  const probe = await pidNamespaceProbe()
  if (!probe.ok) return console.log(`  (no PID namespace per lane here: ${probe.problem})`)
  const r = await runProcess(adoptingArgv([process.execPath, '-e', INSIDE]), { timeoutMs: 20_000 })
  assert.is(r.code, 0, r.stderr)
  const seen = JSON.parse(r.stdout)
  assert.is(seen.pid, 1, 'the first process of its namespace')
  assert.is(seen.inOwn, true)
  assert.is.not(seen.procPid, 1, 'its pid as /proc names it')
  assert.is(seen.childCommand, 'sleep', '/proc names its child by that pid')
  assert.is(seen.childParent, seen.procPid, 'whose parent is the runner, as /proc names it')
  assert.is.not(seen.childProc, seen.child)
  assert.is(seen.signalable, seen.child, 'it signals that child by the pid of its namespace')
})

test('the probe svc doctor reports: a shell started in the runner’s place is pid 1 where namespaces are on', async () => {
  const probe = await pidNamespaceProbe()
  const r = await runProcess(adoptingArgv(['/bin/sh', '-c', 'echo $$']))
  assert.is(probe.ok, r.stdout.trim() === '1', JSON.stringify(probe))
  // As root, Linux always lets a process make a PID namespace.
  if (process.getuid?.() === 0) assert.equal(probe, { ok: true, userNamespace: false })
})

test('a pid in the namespace of a process that is gone names no process here', async () => {
  // A supervisor that ended as its harness did: the pid its namespace gave the harness (2, say) is another
  // process's here, never the harness's.
  const r = await runProcess(['/bin/sh', '-c', 'echo $$'])
  const gone = Number(r.stdout.trim())
  assert.ok(gone > 0)
  assert.is(procPidIn(2, gone), undefined)
  assert.is(procPidIn(2, process.pid), 2, "in /proc's own namespace a pid is itself")
})

test.run()
