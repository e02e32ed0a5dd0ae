import { test } from 'uvu'
import { gauntletTests } from './gauntlet-runs.js'

/** A whole gauntlet with the real claude: a builder commits, pushes and reports; a critic judges that very commit and
 * files its verdict; both are reaped; an orchestrator lane launches a builder of its own and waits for it. Every
 * command runs through claude's Bash tool, as the stand-in model asks. */

gauntletTests('claude', 'Bash tool')

test.run()
