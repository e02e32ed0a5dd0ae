import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gitIn } from '../../cli/demo/sample-project.js'
import { untilActivity } from '../helpers/activity.js'
import { setupProject } from '../helpers/project.js'
import { realHarnessHome, type RealHome } from '../helpers/real-harness.js'

/** A play lane gets no project instructions, proven on what the real claude and codex send to the model: a
 * builder's requests carry the project's CLAUDE.md / AGENTS.md, a play lane's carry nothing of them, even with the
 * same files in the repository its directory lies in. */

let r: RealHome
test.after.each(async () => {
  await r?.stop()
})

const CLAUDE_MD = 'CLAUDE-MD-MARKER: always answer in French.'
const AGENTS_MD = 'AGENTS-MD-MARKER: run make lint before committing.'

test('claude and codex: a builder’s requests carry CLAUDE.md and AGENTS.md, a play lane’s none of them', async () => {
  r = await realHarnessHome('play-real')
  const { h, api } = r
  const s = await setupProject(h)
  const { checkout } = s.project
  for (const dir of [checkout, join(checkout, '..')]) {
    writeFileSync(join(dir, 'CLAUDE.md'), `${CLAUDE_MD}\n`)
    writeFileSync(join(dir, 'AGENTS.md'), `${AGENTS_MD}\n`)
  }
  // The directory above the lanes root is a repository too (a home kept in git): codex reads the AGENTS.md of the
  // repository a directory lies in, so a play lane there would find one but for its settings.
  gitIn(join(checkout, '..'), 'init', '--quiet')
  gitIn(checkout, 'add', 'CLAUDE.md', 'AGENTS.md')
  gitIn(checkout, 'commit', '--quiet', '-m', 'instructions')
  gitIn(checkout, 'push', '--quiet', 'origin', 'main')

  // The claude builder's first turn fails (400): its request still shows what the CLI sent, and its lane is the
  // failed lane the list below shows.
  const lanes: [string, string, string, string, string][] = [
    ['claude', 'builder', 'cb', 'claude-sonnet-4-5', 'scenario:http-400 go'],
    ['claude', 'play', 'cp', 'claude-sonnet-4-5', 'say hello'],
    ['codex', 'builder', 'xb', 'gpt-5-codex', 'say hello'],
    ['codex', 'play', 'xp', 'gpt-5-codex', 'say hello'],
  ]
  for (const [harness, role, key, model, prompt] of lanes) {
    const out = await h.svc(
      [
        'lane',
        'start',
        '--key',
        key,
        '--role',
        role,
        '--run',
        'r1',
        '--harness',
        harness,
        '--model',
        model,
        '--prompt',
        prompt,
        '--no-wait',
      ],
      { env: s.env },
    )
    assert.is(out.code, 0, out.stderr)
  }
  const [failed] = await Promise.all([
    untilActivity(h, 'conv-r1-cb-builder-i1', 'failed-to-start', 30_000),
    ...lanes.slice(1).map(([, role, key]) => untilActivity(h, `conv-r1-${key}-${role}-i1`, 'idle', 30_000)),
  ])
  const sent = (dir: string, apiName: 'anthropic' | 'openai') =>
    api.turnRequests().filter((q) => q.api === apiName && q.raw.includes(dir))
  const cases: [string, 'anthropic' | 'openai', string, boolean][] = [
    [`${s.lanesRoot}/r1-cb`, 'anthropic', CLAUDE_MD, true],
    [`${s.lanesRoot}/r1-cp-play-i1`, 'anthropic', CLAUDE_MD, false],
    [`${s.lanesRoot}/r1-xb`, 'openai', AGENTS_MD, true],
    [`${s.lanesRoot}/r1-xp-play-i1`, 'openai', AGENTS_MD, false],
  ]
  for (const [dir, apiName, marker, carries] of cases) {
    const requests = sent(dir, apiName)
    assert.ok(requests.length > 0, `requests from ${dir}`)
    for (const q of requests)
      assert.is(
        q.raw.includes(marker.slice(0, 16)),
        carries,
        `${dir}: ${carries ? 'carries' : 'no'} ${marker.slice(0, 16)}`,
      )
  }
  // A lane whose first turn failed: the list keeps its columns and says the harness's words on stderr.
  const list = await h.svc(['lane', 'list', '--run', 'r1'])
  assert.is(list.code, 0)
  assert.match(list.stdout, new RegExp(`\\n${failed.id} +r1/cb +builder +i1 +failed-to-start `))
  assert.is(
    list.stderr,
    `#${failed.id} r1/cb builder i1: failed-to-start (spawn: API Error: 400 scripted bad request: ` +
      `messages.0.content is not accepted)\n`,
  )

  // The play lane's claude itself has no service context: no SERVICE_* variable, no svc on its PATH.
  const envOf = (name: string) => {
    const { harness } = JSON.parse(readFileSync(join(h.service, 'agents', name, 'state.json'), 'utf8'))
    return Object.fromEntries(
      readFileSync(`/proc/${harness.pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    )
  }
  const hasSvc = (env: Record<string, string>) =>
    (env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'svc')))
  // (The claude builder's CLI has ended with its failed turn; the codex builder's stands for a builder's.)
  const builderEnv = envOf('conv-r1-xb-builder-i1')
  const playEnv = envOf('conv-r1-cp-play-i1')
  assert.ok(builderEnv.SERVICE_CONVERSATION && hasSvc(builderEnv), 'a builder has its service context')
  assert.equal(
    Object.keys(playEnv).filter((k) => k.startsWith('SERVICE_')),
    [],
  )
  assert.is(hasSvc(playEnv), false)
})

test.run()
