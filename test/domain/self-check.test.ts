import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { checkManifest, type ManifestRead, type SelfCheck } from '../../kernel/domain/self-check.js'

const P = '/h/kernel.json'

test('the kernel stops only on a manifest that is gone or names another; any other read error is logged and waited out', () => {
  const cases: [ManifestRead, SelfCheck][] = [
    [{ token: 'mine' }, { verdict: 'keep' }],
    [{ token: 'theirs' }, { verdict: 'stop', why: `${P} names another kernel` }],
    [{ token: '' }, { verdict: 'stop', why: `${P} names another kernel` }],
    [{ error: 'ENOENT' }, { verdict: 'stop', why: `${P} is gone` }],
    [
      { error: 'EMFILE' },
      { verdict: 'keep-but-log', why: `cannot read ${P} (EMFILE); the kernel keeps running and checks again` },
    ],
    [
      { error: 'ENFILE' },
      { verdict: 'keep-but-log', why: `cannot read ${P} (ENFILE); the kernel keeps running and checks again` },
    ],
    [
      { error: 'EACCES' },
      { verdict: 'keep-but-log', why: `cannot read ${P} (EACCES); the kernel keeps running and checks again` },
    ],
    [
      { error: 'not a manifest' },
      { verdict: 'keep-but-log', why: `cannot read ${P} (not a manifest); the kernel keeps running and checks again` },
    ],
  ]
  for (const [read, want] of cases) assert.equal(checkManifest(read, 'mine', P), want, JSON.stringify(read))
})

test.run()
