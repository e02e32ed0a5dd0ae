import { dirname, join } from 'node:path'
import { ROOT } from './home.js'

/** The stand-in gh (fixtures/gh-bin: the real gh needs GitHub, which this machine cannot reach), for the suites that
 * drive the gh tracker. It keeps its repositories and login in a state file and runs on the test's Node. */
export const GH_BIN = join(ROOT, 'fixtures', 'gh-bin')

/** A PATH of Node and the system's programs only: no real gh, and no other stand-in. */
export const SYSTEM_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':')

/** The environment in which `gh` is the stand-in, with its state in `state`. */
export const ghEnv = (state: string) => ({
  PATH: `${GH_BIN}:${SYSTEM_PATH}`,
  FAKE_NODE: process.execPath,
  FAKE_GH_STATE: state,
})
