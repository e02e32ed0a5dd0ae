import { appendFileSync, existsSync } from 'node:fs'
import { SvcError, oneLine } from '../kernel/domain/errors.js'
import { homePaths, serviceHome } from '../kernel/io/home.js'
import type { KernelPort } from '../kernel/port/port.js'
import { VERSION } from '../kernel/io/version.js'
import { EXIT_CODE } from './exit-code.js'
import { processIo, type Args, type Io } from './io.js'
import { COMMANDS, type CommandSpec } from './table.js'

/** The help text: sade is loaded only here, so no other call pays for it (nor for the CommonJS loader it needs). */
async function program() {
  const { default: sade } = await import('sade')
  const prog = sade('svc').version(VERSION)
  for (const c of COMMANDS) {
    if (c.hidden) continue
    prog.command([c.name, ...c.positionals].join(' '), c.description)
    for (const o of c.options) prog.option(`--${o.flag}`, o.description)
  }
  return prog
}

/** The command named by the leading words of argv (the longest match). */
export function findCommand(argv: string[]): CommandSpec | undefined {
  const words = argv.filter((a) => !a.startsWith('-'))
  let best: CommandSpec | undefined
  for (const c of COMMANDS) {
    const parts = c.name.split(' ')
    if (
      parts.every((p, i) => words[i] === p) &&
      argv.slice(0, parts.length).every((a, i) => a === parts[i]) &&
      (!best || parts.length > best.name.split(' ').length)
    )
      best = c
  }
  return best
}

/** Parse argv against the command's table: unknown options and missing positionals are usage errors. */
export function parseArgs(cmd: CommandSpec, rest: string[]): Args {
  const known = new Map(cmd.options.map((o) => [o.flag, o]))
  const args: Args = { _: [] }
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]
    if (a === '--') {
      args._.push(...rest.slice(i + 1))
      break
    }
    if (!a.startsWith('--') || a === '--') {
      if (a.startsWith('-') && a.length > 1 && a !== '-')
        throw new SvcError('usage', `unknown option ${a} for 'svc ${cmd.name}'`, `svc ${cmd.name} --help`)
      args._.push(a)
      continue
    }
    const eq = a.indexOf('=')
    const flag = a.slice(2, eq === -1 ? undefined : eq)
    const opt = known.get(flag)
    if (!opt) throw new SvcError('usage', `unknown option --${flag} for 'svc ${cmd.name}'`, `svc ${cmd.name} --help`)
    if (opt.type === 'boolean') {
      if (eq !== -1) throw new SvcError('usage', `option --${flag} takes no value`)
      args[flag] = true
      continue
    }
    const value = eq !== -1 ? a.slice(eq + 1) : rest[++i]
    if (value === undefined) throw new SvcError('usage', `option --${flag} needs a value`)
    if (flag in args) throw new SvcError('usage', `option --${flag} given twice`)
    args[flag] = value
  }
  const required = cmd.positionals.filter((p) => p.startsWith('<'))
  if (args._.length < required.length)
    throw new SvcError('usage', `missing ${required[args._.length]} for 'svc ${cmd.name}'`, `svc ${cmd.name} --help`)
  if (!cmd.variadic && args._.length > cmd.positionals.length)
    throw new SvcError('usage', `unexpected argument '${args._[cmd.positionals.length]}' for 'svc ${cmd.name}'`)
  return args
}

/** Keep the details of an unexpected error in cli.log of the service home; where they went, if anywhere. */
function logDetails(io: Io, e: unknown): string | undefined {
  const { dir } = serviceHome(io.env)
  if (!existsSync(dir)) return undefined
  const path = homePaths(dir).cliLog
  try {
    appendFileSync(
      path,
      `${new Date().toISOString()} svc ${VERSION} pid ${process.pid}: ${(e as Error)?.stack ?? String(e)}\n`,
      { mode: 0o600 },
    )
    return path
  } catch {
    return undefined
  }
}

/** Any error as one line (and a hint): never a stack trace. An unexpected one says where its details were kept. */
export function printError(io: Io, e: unknown): number {
  if (e instanceof SvcError) {
    io.err(`svc: ${e.message}\n`)
    if (e.hint) io.err(`hint: ${e.hint}\n`)
    return EXIT_CODE[e.code]
  }
  const where = logDetails(io, e)
  io.err(
    `svc: internal error: ${oneLine((e as Error)?.message ?? String(e))}${where ? ` (details in ${oneLine(where)})` : ''}\n`,
  )
  return 1
}

/** Calls that only read may be sent again after the kernel went away (a restart during a wait is invisible). */
const REPEATABLE = new Set(['laneWait', 'convShow', 'convList', 'convAwaitStart', 'convTranscript', 'kernelStatus'])

/** A port that connects (starting the kernel if none answers) on its first call. */
export function lazyPort(io: Io): KernelPort {
  let real: Promise<KernelPort> | undefined
  // The first call trusts a fresh kernel.json without asking the kernel first; a request that reached no one
  // (nothing listens on the port) is sent again, whatever it asks, once a kernel was found that answers.
  let verify = false
  return new Proxy({} as KernelPort, {
    get: (_t, method: string) => async (input: unknown) => {
      for (let attempt = 0; ; attempt++) {
        real ??= import('./connect.js').then((m) => m.connect(io, verify))
        const port = (await real) as unknown as Record<string, (i: unknown) => Promise<unknown>>
        try {
          return await port[method](input)
        } catch (e) {
          if (!verify && (e as { notDelivered?: boolean }).notDelivered) {
            verify = true
            real = undefined
            continue
          }
          if (!(e instanceof SvcError && e.code === 'unavailable' && REPEATABLE.has(method) && attempt < 50)) throw e
          real = undefined
          await new Promise((r) => setTimeout(r, Math.min(1000, 50 * (attempt + 1))))
        }
      }
    },
  })
}

export async function dispatch(argv: string[], io: Io = processIo(), port: KernelPort = lazyPort(io)): Promise<number> {
  const cmd = findCommand(argv)
  if (!cmd || argv.includes('--help') || argv.includes('-h')) {
    if (!cmd && argv.length && !argv.includes('--help') && !argv.includes('-h')) {
      io.err(
        `svc: unknown command '${argv
          .filter((a) => !a.startsWith('-'))
          .slice(0, 2)
          .join(' ')}'\nhint: svc --help lists the commands\n`,
      )
      return 1
    }
    ;(await program()).help(cmd?.name)
    return 0
  }
  try {
    const args = parseArgs(cmd, argv.slice(cmd.name.split(' ').length))
    const { run } = await cmd.load()
    return await run(port, args, io)
  } catch (e) {
    return printError(io, e)
  }
}
