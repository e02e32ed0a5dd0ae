import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TestHome, git, written } from '../helpers/home.js'
import { setupProject, type Setup } from '../helpers/project.js'

let h: TestHome
let s: Setup
test.before(async () => {
  h = new TestHome('convkey')
  s = await setupProject(h)
})
test.after(() => h.stop())

const start = (args: string[]) => h.ok(['lane', 'start', '--run', 'r1', ...args], { env: s.env })
const idOf = (line: string) => /conv (\d+) \(([^)]+)\)/.exec(line)!.slice(1, 3)
const read = (f: string) => readFileSync(join(h.home, f), 'utf8')
/** One step of a `bash -e` script that goes on whatever the command's exit: its code in c<n>, its stderr in e<n>. */
const step = (n: number, cmd: string) =>
  `${cmd} 2> ${h.home}/e${n} && echo 0 > ${h.home}/c${n} || echo $? > ${h.home}/c${n}`
const OTHER =
  'hint: a conversation acts only as itself: SERVICE_CONVERSATION must name the conversation its key was given to\n'

test('a builder that sets SERVICE_CONVERSATION to its critic or to the root acts as neither; each conversation acts as itself with its own key', async () => {
  // The builder waits for the critic's id, then tries to act as the critic and as the root, then as itself.
  const steps = [
    `while [ ! -e ${h.home}/critic-id ]; do sleep 0.05; done; C=$(cat ${h.home}/critic-id)`,
    `echo "\${SERVICE_CONVERSATION_KEY:+has a key}" > ${h.home}/b-key`,
    step(1, `SERVICE_CONVERSATION=$C svc lane report --stdin --verdict WOWED <<<'wowed'`),
    step(2, `SERVICE_CONVERSATION=${s.root} svc lane start --run r1 --key x --role builder --prompt true`),
    step(3, `SERVICE_CONVERSATION=$C svc conv mark needs-you --reason question`),
    step(4, `SERVICE_CONVERSATION=${s.root} svc tell $C 'from the root'`),
    step(5, `SERVICE_CONVERSATION=$C svc handoff --harness none`),
    step(
      6,
      `(unset SERVICE_CONVERSATION_KEY; SERVICE_CONVERSATION=$C svc lane report --stdin --verdict WOWED <<<'wowed')`,
    ),
    step(7, `SERVICE_CONVERSATION_KEY=forged svc conv mark working`),
    step(8, `svc conv mark working`),
  ]
  const [b] = idOf(await start(['--key', 'b', '--role', 'builder', '--prompt', steps.join('\n')]))
  const sha = git(s.project.checkout, 'rev-parse', 'HEAD')
  const [c, cName] = idOf(
    await start([
      '--for',
      'b',
      '--role',
      'critic',
      '--at',
      sha,
      '--prompt',
      `while [ ! -e ${h.home}/go ]; do sleep 0.05; done; svc lane report --stdin --verdict NOT_YET --defects 1 ` +
        `<<<'not yet' > ${h.home}/critic-out && echo $? > ${h.home}/critic-code`,
    ]),
  )
  // Whole or not at all: the builder's loop could otherwise read the file between its creation and its write.
  writeFileSync(join(h.home, 'critic-id.part'), c)
  renameSync(join(h.home, 'critic-id.part'), join(h.home, 'critic-id'))
  // Eight svc calls, each a Node start, after the critic's start: 30 s, not 15.
  await written(join(h.home, 'c8'), 'the builder script to end', 30_000)

  assert.is(read('b-key').trim(), 'has a key')
  const refusedAs = (n: number, what: string) => [read(`c${n}`).trim(), read(`e${n}`), what]
  assert.equal(refusedAs(1, 'report as the critic'), [
    '1',
    `svc: refused: svc lane report: the key given is conv ${b}'s, not conv ${c}'s\n${OTHER}`,
    'report as the critic',
  ])
  assert.equal(refusedAs(2, 'launch as the root'), [
    '1',
    `svc: refused: svc lane start: the key given is conv ${b}'s, not conv ${s.root}'s\n${OTHER}`,
    'launch as the root',
  ])
  assert.equal(refusedAs(3, 'mark as the critic'), [
    '1',
    `svc: refused: svc conv mark: the key given is conv ${b}'s, not conv ${c}'s\n${OTHER}`,
    'mark as the critic',
  ])
  assert.equal(refusedAs(4, 'tell as the root'), [
    '1',
    `svc: refused: svc tell: the key given is conv ${b}'s, not conv ${s.root}'s\n${OTHER}`,
    'tell as the root',
  ])
  assert.equal(refusedAs(5, 'handoff of the critic'), [
    '1',
    `svc: refused: svc handoff: the key given is conv ${b}'s, not conv ${c}'s\n${OTHER}`,
    'handoff of the critic',
  ])
  // Without any key, the builder's process tree still says who it is.
  assert.equal(refusedAs(6, 'the critic named without a key'), [
    '1',
    `svc: refused: svc lane report: this process belongs to conv ${b}, so it cannot act as conv ${c}\nhint: a ` +
      `conversation acts only as itself, whatever SERVICE_CONVERSATION and its key say\n`,
    'the critic named without a key',
  ])
  assert.equal(refusedAs(7, 'a forged key'), [
    '1',
    'svc: refused: svc conv mark: SERVICE_CONVERSATION_KEY is the key of no conversation\nhint: unset ' +
      'SERVICE_CONVERSATION_KEY, or run this inside the conversation it was given to\n',
    'a forged key',
  ])
  assert.equal([read('c8').trim(), read('e8')], ['0', ''], 'the builder marks itself')
  assert.equal(
    JSON.parse(await h.ok(['lane', 'list', '--run', 'r1', '--json'], { env: s.env })).map(
      (l: { key: string }) => l.key,
    ),
    ['b', 'b'],
    'no lane x',
  )

  // From outside (a human's shell, no key), the critic cannot be acted as either; the critic acts as itself.
  const outside = await h.svc(['lane', 'report', '--stdin', '--verdict', 'WOWED'], {
    input: 'x',
    env: { SERVICE_CONVERSATION: c },
  })
  assert.is(outside.code, 1)
  assert.is(
    outside.stderr.split('\n')[0],
    `svc: refused: svc lane report: conv ${c} acts only with its key, and none was given`,
  )
  writeFileSync(join(h.home, 'go'), '')
  await written(join(h.home, 'critic-code'), 'the critic to report')
  assert.is(read('critic-code').trim(), '0')
  const reports = h.reports(cName)
  assert.equal(
    reports.map((r: { verdict?: string }) => r.verdict),
    ['NOT_YET'],
    "only the critic's own verdict",
  )

  // The key is in no file of the conversation; its record keeps only a hash.
  const dir = join(h.service, 'agents', `conv-${cName}`)
  const record = JSON.parse(readFileSync(join(dir, 'record.json'), 'utf8'))
  assert.match(record.keyHash, /^[0-9a-f]{64}$/)
  assert.not.match(readFileSync(join(dir, 'launch.json'), 'utf8'), 'SERVICE_CONVERSATION_KEY')
})

test('a human root (harness none) keeps launching by its id alone, and a play lane has no key', async () => {
  const out = await start([
    '--key',
    'p',
    '--role',
    'play',
    '--prompt',
    `echo "key:\${SERVICE_CONVERSATION_KEY:-none}" > ${h.home}/play-key`,
  ])
  assert.match(out, /^Lane r1\/p play i1: conv \d+/)
  await written(join(h.home, 'play-key'), 'the play lane to run')
  assert.is(read('play-key'), 'key:none\n')
  const name = /conv \d+ \(([^)]+)\)/.exec(out)![1]
  assert.is(
    JSON.parse(readFileSync(join(h.service, 'agents', `conv-${name}`, 'record.json'), 'utf8')).keyHash,
    undefined,
  )
})

test.run()
