import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  checkoutFound,
  isWithin,
  lanesRootFits,
  lanesRootProblem,
  lanesRootSetting,
} from '../../kernel/domain/configuration.js'
import { ALLOWED, refuse } from '../../kernel/domain/refusal.js'

// SPEC.md 8 Configuration (`lanes_root` and its default) and the configuration constraints: the lanes root lies under
// the user's home directory, outside /tmp, and does not contain the project checkout. One row per case, each problem
// word for word.

test('lanesRootProblem: one row per constraint, /tmp checked first', () => {
  const HOME = '/home/u'
  const CHECKOUT = '/home/u/src/app'
  const rows: [string, string, string | undefined, string | undefined][] = [
    ['the default: a sibling of the checkout', '/home/u/src/app-lanes', undefined, undefined],
    ['deeper under the home', '/home/u/lanes/app', undefined, undefined],
    ['under /tmp', '/tmp/lanes', undefined, 'the lanes root /tmp/lanes lies under /tmp'],
    ['/tmp itself', '/tmp', undefined, 'the lanes root /tmp lies under /tmp'],
    [
      'under the real path of /tmp where /tmp is a link',
      '/private/tmp/l',
      '/private/tmp',
      'the lanes root /private/tmp/l lies under /tmp',
    ],
    ['outside the home', '/srv/lanes', undefined, 'the lanes root /srv/lanes is not under the home directory /home/u'],
    ['the home itself', '/home/u', undefined, 'the lanes root /home/u is not under the home directory /home/u'],
    [
      'a sibling of the home sharing its prefix',
      '/home/u2/lanes',
      undefined,
      'the lanes root /home/u2/lanes is not under the home directory /home/u',
    ],
    [
      'containing the checkout',
      '/home/u/src',
      undefined,
      'the lanes root /home/u/src contains the project checkout /home/u/src/app',
    ],
    [
      'the checkout itself',
      '/home/u/src/app',
      undefined,
      'the lanes root /home/u/src/app contains the project checkout /home/u/src/app',
    ],
  ]
  for (const [name, root, tmp, want] of rows) assert.is(lanesRootProblem(root, HOME, CHECKOUT, tmp), want, name)
  assert.is(
    lanesRootProblem('/tmp/x', '/tmp', '/tmp/x/app'),
    'the lanes root /tmp/x lies under /tmp',
    'a home under /tmp: named for /tmp first',
  )
})

test('isWithin: equal, or inside at a path boundary', () => {
  const rows: [string, string, string, boolean][] = [
    ['equal', '/a/b', '/a/b', true],
    ['inside', '/a/b/c', '/a/b', true],
    ['outer with a trailing slash', '/a/b/c', '/a/b/', true],
    ['a sibling sharing the prefix', '/a/bc', '/a/b', false],
    ['outside', '/a', '/a/b', false],
  ]
  for (const [name, inner, outer, want] of rows) assert.is(isWithin(inner, outer), want, name)
})

test('lanesRootSetting (SPEC.md 8 Configuration, lanes_root): the configured directory, ~ as the home, else <project dir>-lanes', () => {
  const rows: [string, string | undefined, string][] = [
    ['not configured: a sibling of the checkout', undefined, '/home/u/src/app-lanes'],
    ['an absolute directory', '/home/u/lanes', '/home/u/lanes'],
    ['~ alone is the home', '~', '/home/u'],
    ['~/ starts at the home', '~/lanes/app', '/home/u/lanes/app'],
    ['~name is no home: left as given, relative to the checkout', '~x/l', '~x/l'],
    ['a relative directory is left for the checkout to anchor', '../app-wt', '../app-wt'],
  ]
  for (const [name, configured, want] of rows)
    assert.is(lanesRootSetting('/home/u/src/app', configured, '/home/u'), want, name)
})

test('checkoutFound and lanesRootFits (SPEC.md 8): a launch into a project without its checkout, or with a lanes root that breaks a constraint, is refused naming the setting', () => {
  const Y = '/home/u/.service/projects.yaml'
  assert.equal(checkoutFound(Y, 'app', '/home/u/src/app', true), ALLOWED)
  assert.equal(
    checkoutFound(Y, 'app', '/home/u/src/gone', false),
    refuse('usage', `${Y}: app.path: the checkout /home/u/src/gone does not exist`),
  )
  assert.equal(lanesRootFits(Y, 'app', undefined), ALLOWED)
  const problem = lanesRootProblem('/tmp/l', '/home/u', '/home/u/src/app')
  assert.equal(
    lanesRootFits(Y, 'app', problem),
    refuse('usage', `${Y}: app.gauntlet.lanes_root: the lanes root /tmp/l lies under /tmp`),
  )
})

test.run()
