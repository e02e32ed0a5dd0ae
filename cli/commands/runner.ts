import { runRunner } from '../../kernel/runner/runner.js'
import { resolveHome } from '../connect.js'
import type { Run } from '../table.js'

export const run: Run = async (_port, args, io) => runRunner(resolveHome(io), args._[0])
