import { readFileSync, writeFileSync } from 'node:fs'

/** Loaded into each suite process by the test runner (`node --import`): when the process exits, it writes to
 * SERVICE_TEST_CPU_FILE the processor time it used, its own and that of the children it waited for (its `svc` calls,
 * git, and a kernel it started itself with what that kernel ran). A kernel that an `svc` call started outlives that
 * call and is no suite process's child, so its time is not counted: the figure is a floor. */
const file = process.env.SERVICE_TEST_CPU_FILE
if (file) {
  process.on('exit', () => {
    const own = process.cpuUsage()
    let children = 0
    try {
      // Fields 16 and 17 of /proc/self/stat: the user and system time of the waited-for children, in clock ticks.
      const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
      children = ((Number(fields[13]) + Number(fields[14])) / 100) * 1000
    } catch {}
    try {
      writeFileSync(file, String(Math.round((own.user + own.system) / 1000 + children)))
    } catch {}
  })
}
