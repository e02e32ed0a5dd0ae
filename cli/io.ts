import { SvcError } from '../kernel/domain/errors.js'
import { readStdinBounded } from './read-input.js'

/** What a command may touch: its streams, environment and working directory. Tests pass their own. */
export interface Io {
  out: (text: string) => void
  err: (text: string) => void
  env: NodeJS.ProcessEnv
  cwd: string
  isTTY: boolean
  /** Standard input, read with the bound of cli/read-input.ts. */
  readStdin: () => Promise<string>
}

export const processIo = (): Io => ({
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  isTTY: Boolean(process.stderr.isTTY),
  readStdin: () => readStdinBounded(process.stdin),
})

/** An option's value from a fixed set, or a usage error naming the set. */
export function oneOf<A extends object, T extends string>(args: A, flag: keyof A & string, set: readonly T[]) {
  const v = args[flag] as string | undefined
  if (v !== undefined && !(set as readonly string[]).includes(v))
    throw new SvcError('usage', `--${flag} must be one of ${set.join(', ')}, not '${v}'`)
  return v as T | undefined
}

/** Who a command acts as: $SERVICE_CONVERSATION, with the key its harness was given (the kernel refuses to let a
 * conversation that has a key be acted as without it). */
export const actingAs = (io: Pick<Io, 'env'>) => ({
  conversation: io.env.SERVICE_CONVERSATION || undefined,
  conversationKey: io.env.SERVICE_CONVERSATION_KEY || undefined,
})
