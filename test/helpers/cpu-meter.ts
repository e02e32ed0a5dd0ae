import { readFileSync, writeFileSync } from 'node:fs'

/** Loaded into each suite process by the test runner (`node --import`): when the process exits, it writes to
 * SERVICE_TEST_CPU_FILE the processor time it used, its own and that of every child it waited for (the kernels,
 * runners and programs its tests started and stopped), so that the run can say which files cost the machine most. */
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
