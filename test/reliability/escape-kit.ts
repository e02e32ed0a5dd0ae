import * as assert from 'uvu/assert'
import { procStat } from '../../kernel/io/procs.js'
import { until } from '../helpers/home.js'

/** The person kills a lane's runner: the lane process that left its runner's group and session (`left`, running,
 * out of that session) must end with it, as Linux ends every process of the runner's PID namespace. */
export async function assertEndsWithRunner(runner: { pid: number; start: string }, left: number): Promise<void> {
  const before = procStat(left)
  assert.ok(before && before.state !== 'Z', 'the process that left its group and session runs')
  assert.is.not(before!.sid, runner.pid, "it is out of its runner's session")
  process.kill(runner.pid, 'SIGKILL')
  await until(() => procStat(runner.pid)?.start !== runner.start, 'the runner gone')
  const after = procStat(left)
  assert.ok(
    !after || after.start !== before!.start || after.state === 'Z',
    `the process that left its lane's group and session outlived its runner (parent ${after?.ppid})`,
  )
}
