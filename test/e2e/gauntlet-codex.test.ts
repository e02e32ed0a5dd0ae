import { test } from 'uvu'
import { gauntletTests } from './gauntlet-runs.js'

/** A whole gauntlet with the real codex, every command through its own shell tool inside its sandbox: a builder
 * commits, pushes and reports; a critic judges that very commit and files its verdict; both are reaped; an
 * orchestrator lane launches a builder of its own and waits for it. */

gauntletTests('codex', 'shell tool')

test.run()
