import { parse as parseYaml } from 'yaml'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { scratchDir } from '../helpers/home.js'
import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { projectEntry, roleConfig } from '../../kernel/domain/configuration.js'
import { ConfigFile, parseProjects } from '../../kernel/io/config.js'
import { SvcError } from '../../kernel/domain/errors.js'

const BASE = scratchDir('io-config')
const FILE = '/home/u/.service/projects.yaml'

test.after(() => {
  rmSync(BASE, { recursive: true, force: true })
})

/** The error parseProjects throws for this text. */
function errorOf(text: string, path = FILE): SvcError {
  try {
    parseProjects(path, text, parseYaml)
  } catch (e) {
    assert.instance(e, SvcError)
    return e as SvcError
  }
  assert.unreachable(`expected an error for ${JSON.stringify(text)}`)
  throw new Error('unreachable')
}

/** Every config error is one line naming the file and, where there is one, the key path. */
function assertConfigError(text: string, keyPath: string | undefined, path = FILE): string {
  const e = errorOf(text, path)
  assert.is(e.code, 'usage')
  assert.not.ok(e.message.includes('\n'), `one line: ${JSON.stringify(e.message)}`)
  assert.ok(e.message.startsWith(path), `names the file: ${e.message}`)
  if (keyPath) assert.ok(e.message.includes(`: ${keyPath}:`), `names the key path ${keyPath}: ${e.message}`)
  return e.message
}

const VALID = `
myproj:
  path: /home/u/src/myproj
  default_branch: main
  gauntlet:
    lanes_root: /home/u/lanes
    sparse_checkout:
      - src/
      - '!docs/'
    roles:
      builder:
        model: opus
        effort: high
        harness: shell
      critic:
        model: sonnet
        effort: medium
other.proj_2:
  path: /home/u/src/other
`

test('parseProjects: valid YAML with a gauntlet block', () => {
  const p = parseProjects(FILE, VALID, parseYaml)
  assert.equal(p, {
    myproj: {
      path: '/home/u/src/myproj',
      default_branch: 'main',
      gauntlet: {
        lanes_root: '/home/u/lanes',
        sparse_checkout: ['src/', '!docs/'],
        roles: {
          builder: { model: 'opus', effort: 'high', harness: 'shell' },
          critic: { model: 'sonnet', effort: 'medium' },
        },
      },
    },
    'other.proj_2': { path: '/home/u/src/other' },
  })
  assert.is(p.myproj.gauntlet?.roles?.builder?.model, 'opus')
  assert.is(p.myproj.gauntlet?.roles?.builder?.effort, 'high')
  assert.is(p.myproj.gauntlet?.roles?.builder?.harness, 'shell')
})

test('parseProjects: every effort and harness value is accepted', () => {
  for (const effort of ['low', 'medium', 'high'])
    for (const harness of ['claude', 'codex', 'shell', 'none']) {
      const p = parseProjects(
        FILE,
        `p:\n  path: /x\n  gauntlet:\n    roles:\n      verifier:\n        effort: ${effort}\n        harness: ` +
          `${harness}\n`,
        parseYaml,
      )
      assert.equal(p.p.gauntlet?.roles?.verifier, { effort, harness })
    }
})

test('parseProjects: an empty file (or only comments) is no projects', () => {
  assert.equal(parseProjects(FILE, '', parseYaml), {})
  assert.equal(parseProjects(FILE, '\n\n  \n', parseYaml), {})
  assert.equal(parseProjects(FILE, '# nothing configured yet\n', parseYaml), {})
})

test('parseProjects: invalid YAML is one line naming the file', () => {
  const m = assertConfigError('p: [1, 2\n', undefined)
  assert.match(m, /YAML/)
  assertConfigError('p:\n  path: /x\n path2: y\n', undefined)
})

test('parseProjects: an unknown key names its full key path', () => {
  assert.match(
    assertConfigError('myproj:\n  path: /x\n  gauntlet:\n    lanes_rot: /y\n', 'myproj.gauntlet.lanes_rot'),
    /unknown key/,
  )
  assert.match(assertConfigError('myproj:\n  path: /x\n  colour: red\n', 'myproj.colour'), /unknown key/)
  assert.match(
    assertConfigError(
      'myproj:\n  path: /x\n  gauntlet:\n    roles:\n      builder:\n        modle: m\n',
      'myproj.gauntlet.roles.builder.modle',
    ),
    /unknown key/,
  )
})

test('parseProjects: effort: extreme is refused naming the key path and the allowed values', () => {
  const m = assertConfigError(
    'myproj:\n  path: /x\n  gauntlet:\n    roles:\n      builder:\n        effort: extreme\n',
    'myproj.gauntlet.roles.builder.effort',
  )
  assert.match(m, 'extreme')
  for (const v of ['low', 'medium', 'high']) assert.match(m, v)
})

test('parseProjects: other wrong types name their key paths', () => {
  assertConfigError('myproj:\n  path: 3\n', 'myproj.path')
  assertConfigError('myproj:\n  path: /x\n  gauntlet:\n    lanes_root: [a]\n', 'myproj.gauntlet.lanes_root')
  assertConfigError('myproj:\n  path: /x\n  gauntlet:\n    sparse_checkout: src\n', 'myproj.gauntlet.sparse_checkout')
  assertConfigError(
    'myproj:\n  path: /x\n  gauntlet:\n    sparse_checkout: [src, 3]\n',
    'myproj.gauntlet.sparse_checkout.1',
  )
  assertConfigError(
    'myproj:\n  path: /x\n  gauntlet:\n    roles:\n      critic:\n        harness: gpt\n',
    'myproj.gauntlet.roles.critic.harness',
  )
  assertConfigError(
    'myproj:\n  path: /x\n  gauntlet:\n    roles:\n      reviewer:\n        model: m\n',
    'myproj.gauntlet.roles.reviewer',
  )
  assertConfigError('My Proj:\n  path: /x\n', 'My Proj')
})

test('parseProjects: a wrong type where a mapping belongs is not called an unknown key', () => {
  // `gauntlet: 3` and `builder: 3` are keys the schema knows; their value has the wrong type
  const g = assertConfigError('myproj:\n  path: /x\n  gauntlet: 3\n', 'myproj.gauntlet')
  assert.not.match(g, /unknown key/)
  const r = assertConfigError(
    'myproj:\n  path: /x\n  gauntlet:\n    roles:\n      builder: 3\n',
    'myproj.gauntlet.roles.builder',
  )
  assert.not.match(r, /unknown key/)
  const p = assertConfigError('myproj: hello\n', 'myproj')
  assert.not.match(p, /unknown key/)
})

test('parseProjects: a missing required path is not called an unknown key', () => {
  const m = assertConfigError('myproj:\n  default_branch: main\n', 'myproj.path')
  assert.not.match(m, /unknown key/)
})

test('parseProjects: a scalar document is refused at the top level', () => {
  const m = assertConfigError('hello\n', undefined)
  assert.match(m, 'top level')
})

test('ConfigFile: a missing file is no projects', async () => {
  const c = new ConfigFile(join(BASE, 'missing', 'projects.yaml'))
  assert.equal(await c.projects(), {})
})

test('ConfigFile caches the parse and re-reads when the file changes', async () => {
  const dir = join(BASE, 'cfg')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'projects.yaml')
  writeFileSync(path, 'a:\n  path: /one\n')
  const c = new ConfigFile(path)
  const first = await c.projects()
  assert.equal(first, { a: { path: '/one' } })
  assert.is(await c.projects(), first, 'same object while the file is unchanged')

  // a change of size
  writeFileSync(path, 'a:\n  path: /one\nb:\n  path: /two\n')
  const second = await c.projects()
  assert.equal(second, { a: { path: '/one' }, b: { path: '/two' } })
  assert.is.not(second, first)

  // same size, new mtime
  writeFileSync(path, 'a:\n  path: /ONE\nb:\n  path: /two\n')
  const later = new Date(statSync(path).mtimeMs + 5000)
  utimesSync(path, later, later)
  assert.equal(await c.projects(), { a: { path: '/ONE' }, b: { path: '/two' } })

  // a change of size under an unchanged mtime
  const fixed = new Date(1_900_000_000_000)
  writeFileSync(path, 'a:\n  path: /three\n')
  utimesSync(path, fixed, fixed)
  assert.equal(await c.projects(), { a: { path: '/three' } })
  writeFileSync(path, 'a:\n  path: /three-and-more\n')
  utimesSync(path, fixed, fixed)
  assert.is(statSync(path).mtimeMs, fixed.getTime())
  assert.equal(await c.projects(), { a: { path: '/three-and-more' } })

  // a change that breaks it is reported, naming the file
  writeFileSync(path, 'a:\n  path: /one\n  gauntlet:\n    roles:\n      builder:\n        effort: extreme\n')
  try {
    await c.projects()
    assert.unreachable('expected the broken file to be refused')
  } catch (e) {
    assert.instance(e, SvcError)
    assert.ok((e as Error).message.startsWith(path), (e as Error).message)
    assert.match((e as Error).message, 'a.gauntlet.roles.builder.effort')
  }
})

test('project keys and role names from users are looked up as own keys only', () => {
  const p = parseProjects(
    FILE,
    'myproj:\n  path: /x\n  gauntlet:\n    roles:\n      builder:\n        model: opus\n',
    parseYaml,
  )
  assert.is(projectEntry(p, 'myproj')?.path, '/x')
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
    assert.is(projectEntry(p, key), undefined, key)
    assert.is(roleConfig(p.myproj, key), undefined, key)
  }
  assert.equal(roleConfig(p.myproj, 'builder'), { model: 'opus' })
  assert.is(roleConfig(p.myproj, 'critic'), undefined)
})

test.run()

test('parseProjects: a role permission policy is read; each bad value is one line naming its key path', () => {
  const role = (body: string) =>
    `myproj:\n  path: /x\n  gauntlet:\n    roles:\n      builder:\n        permissions:\n${body}`
  const p = parseProjects(
    FILE,
    role('          mode: ask\n          allow: ["Bash(npm test:*)"]\n          writable: [/var/cache/b]\n'),
    parseYaml,
  )
  assert.equal(p.myproj.gauntlet?.roles?.builder?.permissions, {
    mode: 'ask',
    allow: ['Bash(npm test:*)'],
    writable: ['/var/cache/b'],
  })
  const m = assertConfigError(role('          mode: open\n'), 'myproj.gauntlet.roles.builder.permissions.mode')
  for (const v of ['ask', 'worktree', 'full']) assert.match(m, v)
  assert.match(
    assertConfigError(role('          writable: [cache]\n'), 'myproj.gauntlet.roles.builder.permissions.writable.0'),
    'an absolute directory path',
  )
  assert.match(
    assertConfigError(role('          allow: [""]\n'), 'myproj.gauntlet.roles.builder.permissions.allow.0'),
    'a permission rule',
  )
  assertConfigError(role('          bash: yes\n'), 'myproj.gauntlet.roles.builder.permissions')
})
