import { test } from 'uvu'
import { TestHome } from '../helpers/home.js'
import { Gates } from '../helpers/gates.js'
import { setupProject, type Setup } from '../helpers/project.js'
import type { PortInput } from '../../kernel/port/port.js'
import { startRequest } from './lane-views-kit.js'

/** What the report and wait suites share: a home with the sample project for each test (given to `use` before it
 * runs, stopped after), lanes of run r1, gates their scripts wait on, and the reports a lane filed. */
export function reportSuite(use: (world: { h: TestHome; s: Setup }) => void) {
  let h: TestHome
  let s: Setup
  let gates: Gates
  test.before.each(async () => {
    h = new TestHome('report')
    gates = new Gates(h.home)
    s = await setupProject(h)
    use({ h, s })
  })
  test.after.each(async () => {
    gates.close()
    await h.stop()
  })
  /** `svc lane start --run r1 <args>` from the root conversation, asked over the kernel's port (the start's CLI has
   * suites of its own; these test what the lanes report and what waits get). */
  const start = async (args: string[]) =>
    (await h.port()).laneStart({
      ...startRequest(args),
      run: 'r1',
      conversation: s.root,
      cwd: h.home,
    } as PortInput<'laneStart'>)
  /** A shell line that waits at gate `n` until `open(n)`. */
  const gate = (n: string) => gates.line(n)
  const open = (n: string) => gates.open(n)
  const reportsOf = (name: string) => h.reports(name)
  return { start, gate, open, reportsOf }
}
