import { serveLanes } from '../../kernel/runner/local-runner.js'
import { resolveHome } from '../connect.js'
import type { Run } from '../verbs.js'

export const run: Run<'runner serve'> = async (_port, _args, io) => serveLanes(resolveHome(io))
