import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { projectListed, projectNamed } from '../../kernel/domain/projects.js'
import { allow, refuse, type Decision } from '../../kernel/domain/refusal.js'

// Which project a verb acts on: one named or found, and one of projects.yaml. The same refusal for every verb.

const fix = 'pass --project, or run from inside a checkout listed in projects.yaml'

test('projectNamed: a project named or found; none is a usage error naming what needed it', () => {
  const CASES: [string | undefined, string, Decision<{ key: string }>][] = [
    ['app', 'this launch', allow({ key: 'app' })],
    [undefined, 'this launch', refuse('usage', `no project for this launch: ${fix}`)],
    ['', 'the new issue', refuse('usage', `no project for the new issue: ${fix}`)],
    [undefined, 'issue local:1', refuse('usage', `no project for issue local:1: ${fix}`)],
  ]
  for (const [key, what, want] of CASES) assert.equal(projectNamed(key, what), want, `${key} ${what}`)
})

test('projectListed: the entry of projects.yaml, else not_found; the hint lists the projects when the verb offers them', () => {
  const yaml = '/h/.service/projects.yaml'
  const entry = { path: '/src/app' }
  const CASES: [string, object | undefined, string[] | undefined, Decision<{ entry: object }>][] = [
    ['app', entry, undefined, allow({ entry })],
    ['nope', undefined, undefined, refuse('not_found', `no project nope in ${yaml}`)],
    ['nope', undefined, ['app', 'web'], refuse('not_found', `no project nope in ${yaml}`, 'projects: app, web')],
    ['nope', undefined, [], refuse('not_found', `no project nope in ${yaml}`)],
    ['__proto__', undefined, ['app'], refuse('not_found', `no project __proto__ in ${yaml}`, 'projects: app')],
    ['a\nb', undefined, undefined, refuse('not_found', `no project a\\nb in ${yaml}`)],
  ]
  for (const [key, e, listed, want] of CASES) assert.equal(projectListed(key, e, yaml, listed), want, key)
})

test.run()
