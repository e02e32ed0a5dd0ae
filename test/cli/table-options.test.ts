import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { COMMANDS, type CommandSpec } from '../../cli/table.js'
import { ROOT } from '../helpers/home.js'

// cli/table.ts declares each verb's options once: the parser (cli/dispatch.ts parseArgs) refuses any other, and the
// help prints them. This suite keeps the table and the command files in step: a command that reads an option its
// entry does not declare (dead code: the parser never lets it through), or an entry that declares an option its
// command never reads (help promising what the verb ignores), fails here. It reads the command files' source: the
// function the entry loads, and every function of cli/ it hands `args` to.

interface Decl {
  /** The declaration's first line (its parameters). */
  head: string
  body: string
}

/** A module of cli/: its top-level declarations by name, and the names it imports from other modules of cli/. */
interface Module {
  decls: Map<string, Decl>
  imports: Map<string, string>
}

const modules = new Map<string, Module>()

function moduleAt(path: string): Module {
  let m = modules.get(path)
  if (m) return m
  const src = readFileSync(join(ROOT, path), 'utf8')
  const decls = new Map<string, Decl>()
  const starts = [...src.matchAll(/^(?:export )?(?:async )?(?:function|const|let) (\w+)/gm)]
  starts.forEach((s, i) => {
    const text = src.slice(s.index, starts[i + 1]?.index ?? src.length)
    decls.set(s[1], { head: text.split('\n')[0], body: text })
  })
  const imports = new Map<string, string>()
  for (const [, names, from] of src.matchAll(/^import (?:type )?\{([^}]*)\} from '(\.[^']+)'/gm)) {
    const target = join(path, '..', from).replace(/\.js$/, '.ts')
    if (!target.startsWith('cli/')) continue
    for (const n of names
      .split(',')
      .map((x) => x.trim().replace(/^type /, ''))
      .filter(Boolean))
      imports.set(n, target)
  }
  m = { decls, imports }
  modules.set(path, m)
  return m
}

/** The function whose argument list holds position `at`: back to the unclosed parenthesis, then its name;
 * undefined for a parameter list (`async (port, args, io) =>`, `= (port, args, io) =>`). */
function calleeAt(text: string, at: number): string | undefined {
  let depth = 0
  let i = at
  for (; i >= 0; i--) {
    if (text[i] === ')') depth++
    else if (text[i] === '(' && depth-- === 0) break
  }
  const name = /(\w+)\s*$/.exec(text.slice(0, Math.max(i, 0)))?.[1]
  return name === 'async' || name === 'function' ? undefined : name
}

/** The options a declaration reads, following calls into the functions of cli/ it hands `args` to. */
function optionsRead(path: string, name: string, seen = new Set<string>()): { reads: Set<string>; unknown: string[] } {
  const reads = new Set<string>()
  const unknown: string[] = []
  const id = `${path}#${name}`
  if (seen.has(id)) return { reads, unknown }
  seen.add(id)
  const m = moduleAt(path)
  const decl = m.decls.get(name)
  if (!decl) return { reads, unknown: [`${id} not found`] }
  const { body, head } = decl
  for (const [, flag] of body.matchAll(/\bargs\.([a-zA-Z][\w]*)/g)) reads.add(flag)
  for (const [, flag] of body.matchAll(/\bargs\[\s*'([^']+)'\s*\]/g)) reads.add(flag)
  for (const [, flag] of body.matchAll(/\(\s*args\s*,\s*'([^']+)'/g)) reads.add(flag)
  // A read by a computed name is allowed only in a helper that is given the name: optionText(args, flag),
  // oneOf(args, flag, set).
  for (const [, key] of body.matchAll(/\bargs\[\s*([^'\]\s][^\]]*)\]/g))
    if (!new RegExp(`\\b${key}\\s*:\\s*string\\b`).test(head)) unknown.push(`${id} reads args[${key}]`)
  if (/[{,]\s*\.\.\.args\b|=\s*args\s*[;\n]/.test(body)) unknown.push(`${id} copies or destructures args`)
  // Calls that hand `args` on, and in a declaration that never sees `args` (a factory: `successor('fork')`), the
  // functions of cli/ it calls.
  const handsOn = [...body.matchAll(/[(,]\s*args\s*[,)]/g)].flatMap((x) => calleeAt(body, x.index) ?? [])
  const made = /\bargs\b/.test(body)
    ? []
    : [...body.matchAll(/\b(\w+)\(/g)]
        .map((x) => x[1])
        .filter((f) => f !== name && (m.decls.has(f) || m.imports.has(f)))
  for (const callee of [...handsOn, ...made]) {
    const where = m.decls.has(callee) ? path : m.imports.get(callee)
    if (!where) {
      unknown.push(`${id} hands args to ${callee}, outside cli/`)
      continue
    }
    const inner = optionsRead(where, callee, seen)
    inner.reads.forEach((r) => reads.add(r))
    unknown.push(...inner.unknown)
  }
  return { reads, unknown }
}

/** The command file and the export an entry's `load` runs: `import('./commands/x.js')` runs `run`, `.then((m) => ({
 * run: m.name }))` or `m.name(...)` runs that export. */
function loaded(c: CommandSpec): { path: string; name: string } {
  const src = c.load.toString()
  const file = /import\(['"]\.\/commands\/([\w-]+)\.js['"]\)/.exec(src)
  if (!file) throw new Error(`svc ${c.name}: cannot tell which command file its load imports: ${src}`)
  return { path: `cli/commands/${file[1]}.ts`, name: /\bm\.(\w+)/.exec(src)?.[1] ?? 'run' }
}

function mismatches(c: CommandSpec): string[] {
  const { path, name } = loaded(c)
  const { reads, unknown } = optionsRead(path, name)
  const declared = new Set(c.options.map((o) => o.flag))
  return [
    ...unknown,
    ...[...reads]
      .filter((r) => r !== '_' && !declared.has(r))
      .map((r) => `svc ${c.name} reads --${r}, which its table entry does not declare`),
    ...[...declared]
      .filter((d) => !reads.has(d))
      .map((d) => `svc ${c.name} declares --${d}, which ${path} ${name} never reads`),
  ]
}

test('every option a command reads is declared in its table entry, and every declared option is read', () => {
  assert.equal(COMMANDS.flatMap(mismatches), [])
})

test('the check sees what it claims to: the options of svc lane start and svc worker wait as their code reads them', () => {
  const read = (verb: string) => {
    const { path, name } = loaded(COMMANDS.find((c) => c.name === verb)!)
    return [...optionsRead(path, name).reads].sort()
  }
  assert.equal(read('lane start'), [
    'at',
    'branch',
    'brief',
    'effort',
    'for',
    'from',
    'harness',
    'json',
    'key',
    'model',
    'no-wait',
    'parent',
    'project',
    'prompt',
    'replace',
    'reuse',
    'role',
    'run',
    'title',
  ])
  assert.equal(read('worker wait'), ['after', 'issue', 'json', 'parent', 'project', 'timeout'])
  assert.equal(read('lane wait'), ['after', 'json', 'parent', 'run', 'timeout'])
})

test('a table entry that drifts from its command fails the check, both ways', () => {
  const show = COMMANDS.find((c) => c.name === 'lane show')!
  const undeclared = { ...show, options: show.options.filter((o) => o.flag !== 'key') }
  assert.equal(mismatches(undeclared), ['svc lane show reads --key, which its table entry does not declare'])
  const unread = { ...show, options: [...show.options, { flag: 'park', description: 'x', type: 'boolean' as const }] }
  assert.equal(mismatches(unread), ['svc lane show declares --park, which cli/commands/lane-views.ts show never reads'])
})

test.run()
