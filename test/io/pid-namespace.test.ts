import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { runProcess } from '../../kernel/io/process.js'
import { pidNamespaceProbe } from '../../kernel/io/subreaper.js'
import { inOwnPidNamespace, procPid, procPidIn, signalablePid } from '../../kernel/io/pid-namespace.js'

// A lane's supervisor is the first process of a PID namespace of its own, while the kernel and the home's runner read
// /proc, which names every process by its pid outside: a pid the namespace gives must be translated, never taken as
// this machine's.

test('outside a namespace of its own, a process names itself and its children as /proc does', () => {
  assert.is(inOwnPidNamespace(), false)
  assert.is(procPid(), process.pid)
  assert.is(signalablePid(12345), 12345)
})

test('the probe svc doctor reports finds a lane supervisor’s namespace and its /proc as root', async () => {
  const probe = await pidNamespaceProbe()
  // As root, Linux always lets a process make a PID namespace, and mount its /proc.
  if (process.getuid?.() === 0) assert.equal(probe, { ok: true, userNamespace: false })
  else assert.is(probe.userNamespace, true, JSON.stringify(probe))
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
