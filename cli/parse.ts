import { parseArgs } from 'node:util'
import { SvcError } from '../kernel/domain/errors.js'
import { VERBS, type Args, type VerbName, type VerbSpec } from './verbs.js'

/** The verb named by the leading words of argv (the longest match). */
export function findVerb(argv: string[]): VerbName | undefined {
  let best: VerbName | undefined
  for (const name of Object.keys(VERBS) as VerbName[]) {
    const words = name.split(' ')
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.split(' ').length)) best = name
  }
  return best
}

/** The arguments after the verb's words, parsed strictly against its declaration: an unknown option, a missing
 * value, a value given to a flag, a string option given twice, or a missing or extra positional is a usage error. */
export function parseVerb<N extends VerbName>(name: N, rest: string[]): Args<N> {
  const spec: VerbSpec = VERBS[name]
  const usage = (message: string) => new SvcError('usage', message, `svc ${name} --help`)
  const options = Object.fromEntries(Object.entries(spec.options).map(([flag, o]) => [flag, { type: o.type }]))
  rest = joinNegativeValues(spec, rest)
  let parsed
  try {
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: true, tokens: true })
  } catch (e) {
    throw usage(explain(spec, name, rest) ?? String((e as Error).message).split('\n')[0])
  }
  const given = new Set<string>()
  for (const t of parsed.tokens)
    if (t.kind === 'option' && spec.options[t.name].type === 'string') {
      if (given.has(t.name)) throw usage(`option ${t.rawName} given twice`)
      given.add(t.name)
    }
  const args: Record<string, unknown> = { ...parsed.values }
  const positionals = parsed.positionals
  const required = spec.positionals.filter((p) => p.startsWith('<'))
  if (positionals.length < required.length) throw usage(`missing ${required[positionals.length]} for 'svc ${name}'`)
  if (positionals.length > spec.positionals.length)
    throw usage(`unexpected argument '${positionals[spec.positionals.length]}' for 'svc ${name}'`)
  spec.positionals.forEach((p, i) => {
    if (positionals[i] !== undefined) args[p.slice(1, -1)] = positionals[i]
  })
  return args as Args<N>
}

/** A negative number after a string option is that option's value (`--defects -1`), so that the verb's own check
 * says what is wrong with it rather than the parser taking it for an unknown flag. */
function joinNegativeValues(spec: VerbSpec, rest: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i].startsWith('--') ? rest[i].slice(2) : undefined
    const next = rest[i + 1]
    if (flag && Object.hasOwn(spec.options, flag) && spec.options[flag].type === 'string' && /^-\d/.test(next ?? '')) {
      out.push(`${rest[i]}=${next}`)
      i++
    } else out.push(rest[i])
  }
  return out
}

/** What was wrong with the options, said the way the rest of svc says it. */
function explain(spec: VerbSpec, name: string, rest: string[]): string | undefined {
  const { tokens } = parseArgs({ args: rest, strict: false, allowPositionals: true, tokens: true })
  for (const t of tokens) {
    if (t.kind !== 'option') continue
    const o = Object.hasOwn(spec.options, t.name) ? spec.options[t.name] : undefined
    if (!o) return `unknown option ${t.rawName} for 'svc ${name}'`
    if (o.type === 'boolean' && t.value !== undefined) return `option ${t.rawName} takes no value`
    const next = rest[t.index + 1]
    if (o.type === 'string' && !t.inlineValue && (next === undefined || next.startsWith('-')))
      return next === undefined
        ? `option ${t.rawName} needs a value`
        : `option ${t.rawName} needs a value (one that starts with '-' is written ${t.rawName}=${next})`
  }
  return undefined
}
