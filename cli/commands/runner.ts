import { runRunner } from '../../kernel/runner/runner.js'
import { resolveHome } from '../connect.js'
import type { Run } from '../verbs.js'

export const run: Run<'runner'> = async (_port, args, io) => runRunner(resolveHome(io), args.name)
